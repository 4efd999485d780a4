import { RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { type SecretSettingName, secretArnVariable } from '../../shared/config/secrets';
import { SETTINGS } from '../../shared/config/settings';

interface SecretDeclaration {
  /** Construct id, kept as first deployed: a new id would replace the secret and its value. */
  readonly id: string;
  /** Generated length: 64 for keys the service makes its own, 32 for placeholders an operator replaces. */
  readonly length: 32 | 64;
  /** Why the value matters, or that it is a placeholder to replace. */
  readonly about: string;
  /**
   * RETAIN when something outside the functions depends on the value (data in the retained
   * table, links in emails already sent, the provider's webhook configuration) or an operator
   * put it there: deleting the stack, or replacing the resource, must not destroy it. Only the
   * session key goes with the stack: losing it ends sessions, and users log in again.
   */
  readonly retain: boolean;
}

const PLACEHOLDER = 'placeholder: put the real value (live within 5 minutes, no deploy)';

/**
 * One Secrets Manager secret per secret setting (keyed by setting, so a new secret setting must
 * be declared here). Values are generated; functions read them at runtime by ARN
 * (shared/config/secrets.ts), so a put value is live without a deploy (docs/operations.md).
 */
export const SECRETS: Readonly<Record<SecretSettingName, SecretDeclaration>> = {
  sessionSecret: { id: 'SessionSecret', length: 64, about: 'HMAC key of the session tokens', retain: false },
  providerAccessToken: { id: 'ProviderAccessToken', length: 32, about: `Access token of the network/email provider; ${PLACEHOLDER}`, retain: true },
  providerWebhookSecret: {
    id: 'ProviderWebhookSecret',
    length: 64,
    about: 'Shared secret the provider sends in X-Webhook-Secret (configured at the provider); also keys hosted-connect state',
    retain: true,
  },
  webhookSecretKey: {
    id: 'WebhookSecretKey',
    length: 64,
    about: "Key material sealing users' webhook signing secrets in the table; never rotate: sealed secrets would not open",
    retain: true,
  },
  directoryApiKey: { id: 'DirectoryApiKey', length: 32, about: `API key of the B2B directory behind prospect search; ${PLACEHOLDER}`, retain: true },
  unsubscribeSecret: {
    id: 'UnsubscribeSecret',
    length: 64,
    about: 'HMAC key of the tokens in unsubscribe links; rotating it breaks links already sent',
    retain: true,
  },
  hunterApiKey: { id: 'HunterApiKey', length: 32, about: `API key of Hunter, an enrichment provider; ${PLACEHOLDER}`, retain: true },
  prospeoApiKey: { id: 'ProspeoApiKey', length: 32, about: `API key of Prospeo, an enrichment provider; ${PLACEHOLDER}`, retain: true },
  lushaApiKey: { id: 'LushaApiKey', length: 32, about: `API key of Lusha, an enrichment provider; ${PLACEHOLDER}`, retain: true },
};

/**
 * Creates the secrets in `scope` (the stack, so their logical ids stay those first deployed) and
 * hands each function the ones its settings declare: the ARN in `<VARIABLE>_ARN` and
 * `secretsmanager:GetSecretValue` on that secret alone. No value ever reaches a function's
 * configuration or the template.
 */
export class ServiceSecrets {
  public readonly secrets: Readonly<Record<SecretSettingName, Secret>>;

  constructor(scope: Construct) {
    const secrets = {} as Record<SecretSettingName, Secret>;
    for (const [name, declaration] of Object.entries(SECRETS) as [SecretSettingName, SecretDeclaration][]) {
      secrets[name] = new Secret(scope, declaration.id, {
        description: `${declaration.about} (${SETTINGS[name].env})`,
        generateSecretString: { excludePunctuation: true, passwordLength: declaration.length },
        removalPolicy: declaration.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
    }
    this.secrets = secrets;
  }

  /** The secret's ARN in the function's environment and the right to read that secret, and nothing more. */
  giveTo(fn: IFunction & { addEnvironment(key: string, value: string): unknown }, name: SecretSettingName): void {
    const secret = this.secrets[name];
    fn.addEnvironment(secretArnVariable(name), secret.secretArn);
    // Not secret.grantRead: that adds DescribeSecret, which reading the value does not need.
    fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }));
  }
}
