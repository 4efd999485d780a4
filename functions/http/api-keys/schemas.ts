import * as v from 'valibot';
import { MAX_API_KEY_NAME_LENGTH } from '../../../shared/domain/api-keys/api-key';

export const CreateApiKeyBody = v.object({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('name is required'),
    v.maxLength(MAX_API_KEY_NAME_LENGTH, `name must be at most ${MAX_API_KEY_NAME_LENGTH} characters`),
  ),
});
