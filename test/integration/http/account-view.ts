/** A sender account as the accounts endpoints answer it. */
export type AccountView = {
  id: number;
  name: string;
  type: string;
  status: string;
  is_active: boolean;
  provider_account_id: string;
  provider_type: string;
  daily_limits: { emails: number; invitations: number; network_messages: number };
  sending_paused: { reason: string; until: string | null; at: string } | null;
  created_at: string;
  updated_at: string;
};
