import * as v from 'valibot';
import { defineRoute } from './define';

export const healthRoutes = {
  health: defineRoute('health', {
    method: 'GET',
    path: '/health',
    auth: 'none',
    summary: 'Liveness: no auth, no DynamoDB call, so it is cheap to poll.',
    responses: { 200: v.strictObject({ success: v.literal(true), status: v.literal('ok') }) },
  }),
};
