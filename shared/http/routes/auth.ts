import * as v from 'valibot';
import { typedName } from '../../domain/validation';
import { MAX_PASSWORD_LENGTH, MAX_WORKSPACE_NAME_LENGTH, MIN_PASSWORD_LENGTH, passwordLength } from '../../domain/accounts/account';
import { Id, Success, Timestamp, defineRoute } from './define';

// Type checks keep valibot's default message, which describeIssue turns into
// "<field> is required" or "<field> must be a string"; rules carry their own sentence.
export const Email = v.pipe(
  v.string(),
  v.trim(),
  v.nonEmpty('email is required'),
  v.maxLength(254, 'email must be at most 254 characters'),
  v.email('email must be a valid email address'),
);

const name = (field: string) =>
  typedName(MAX_WORKSPACE_NAME_LENGTH, { empty: `${field} must not be empty`, tooLong: `${field} must be at most ${MAX_WORKSPACE_NAME_LENGTH} characters` });

export const SignupBody = v.object({
  email: Email,
  password: v.pipe(
    v.string(),
    // Characters as a person counts them (an emoji is one), not UTF-16 code units; a string far
    // too long is not counted (passwordLength).
    v.check((password) => passwordLength(password) >= MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`),
    v.check((password) => passwordLength(password) <= MAX_PASSWORD_LENGTH, `password must be at most ${MAX_PASSWORD_LENGTH} characters`),
    v.description(`${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, counted as graphemes (an emoji is one).`),
  ),
  workspace_name: v.optional(name('workspace_name')),
});

export const LoginBody = v.object({
  email: Email,
  // A password no account can have is a wrong one: the service answers it as such (401), unhashed.
  password: v.pipe(v.string(), v.nonEmpty('password is required')),
});

export const CreateWorkspaceBody = v.object({ name: name('name') });

const UserView = v.strictObject({ id: Id, email: v.string(), created_at: Timestamp });
const WorkspaceView = v.strictObject({
  id: Id,
  name: v.string(),
  role: v.picklist(['OWNER', 'MEMBER']),
  created_at: Timestamp,
  is_current: v.optional(v.boolean()),
});
const SignedIn = v.strictObject({
  success: v.literal(true),
  token: v.string(),
  user: UserView,
  workspace_id: Id,
  expires_at: Timestamp,
});
const WorkspaceAnswer = v.strictObject({ success: v.literal(true), workspace: WorkspaceView });

export const authRoutes = {
  signUp: defineRoute('auth', {
    method: 'POST',
    path: '/auth/signup',
    auth: 'none',
    summary: 'Creates a user and their first workspace, and signs them in (session cookie and token).',
    request: { body: SignupBody },
    responses: { 201: SignedIn },
    errors: [409],
  }),
  logIn: defineRoute('auth', {
    method: 'POST',
    path: '/auth/login',
    auth: 'none',
    summary: 'Signs in (session cookie and token).',
    request: { body: LoginBody },
    responses: { 200: SignedIn },
    // 401: wrong email or password (one answer for both); 403: an account without a workspace;
    // 429: too many failed attempts from this address, for this email or in all (Retry-After).
    errors: [401, 403, 429],
  }),
  logOut: defineRoute('auth', {
    method: 'POST',
    path: '/auth/logout',
    auth: 'session',
    summary: 'Ends the session at once and clears the cookie.',
    responses: { 200: Success },
  }),
  me: defineRoute('auth', {
    method: 'GET',
    path: '/auth/me',
    auth: 'apiKeyOrSession',
    summary: 'The caller, their current workspace and how they authenticated.',
    responses: {
      200: v.strictObject({ success: v.literal(true), user: UserView, workspace_id: Id, auth: v.picklist(['apiKey', 'session']) }),
    },
  }),
  listWorkspaces: defineRoute('auth', {
    method: 'GET',
    path: '/workspaces',
    auth: 'apiKeyOrSession',
    summary: "The caller's workspaces; `is_current` marks the one the credentials act in.",
    responses: { 200: v.strictObject({ success: v.literal(true), workspaces: v.array(WorkspaceView) }) },
  }),
  createWorkspace: defineRoute('auth', {
    method: 'POST',
    path: '/workspaces',
    auth: 'apiKeyOrSession',
    summary: 'Creates a workspace owned by the caller.',
    request: { body: CreateWorkspaceBody },
    responses: { 201: WorkspaceAnswer },
  }),
  selectWorkspace: defineRoute('auth', {
    method: 'POST',
    path: '/workspaces/{id}/select',
    auth: 'session',
    summary: "Switches the session's current workspace.",
    // Any text: an id that is not a number cannot be one of the user's workspaces, so it gets the same 403.
    request: { path: v.object({ id: v.string() }) },
    responses: { 200: WorkspaceAnswer },
    errors: [403],
  }),
};
