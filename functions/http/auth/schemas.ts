import * as v from 'valibot';
import { MAX_PASSWORD_LENGTH, MAX_WORKSPACE_NAME_LENGTH, MIN_PASSWORD_LENGTH } from '../../../shared/domain/accounts/account';

// Type checks keep valibot's default message, which describeIssue turns into
// "<field> is required" or "<field> must be a string"; rules carry their own sentence.
const Email = v.pipe(
  v.string(),
  v.trim(),
  v.nonEmpty('email is required'),
  v.maxLength(254, 'email must be at most 254 characters'),
  v.email('email must be a valid email address'),
);

const name = (field: string) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty(`${field} must not be empty`),
    v.maxLength(MAX_WORKSPACE_NAME_LENGTH, `${field} must be at most ${MAX_WORKSPACE_NAME_LENGTH} characters`),
  );

export const SignupBody = v.object({
  email: Email,
  password: v.pipe(
    v.string(),
    v.minLength(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`),
    v.maxLength(MAX_PASSWORD_LENGTH, `password must be at most ${MAX_PASSWORD_LENGTH} characters`),
  ),
  workspace_name: v.optional(name('workspace_name')),
});

export const LoginBody = v.object({
  email: Email,
  password: v.pipe(v.string(), v.nonEmpty('password is required'), v.maxLength(MAX_PASSWORD_LENGTH, 'Invalid email or password')),
});

export const CreateWorkspaceBody = v.object({ name: name('name') });
