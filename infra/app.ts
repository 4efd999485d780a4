import { App, Tags } from 'aws-cdk-lib';
import { loadConfig } from './config';
import { addRulePacks } from './rule-packs';
import { OutreachStack } from './stacks/outreach-stack';

const app = new App();
const config = loadConfig(app.node);

// Environment-agnostic on purpose: no account/region lookups, so `cdk synth` runs offline and
// without credentials. `cdk deploy` takes the account and region from the caller's profile.
new OutreachStack(app, config.stackName, {
  config,
  description: 'Outreach automation service: HTTP API, authorizer, single-table DynamoDB',
});
Tags.of(app).add('service', 'outreach-automation');
// cdk-nag: an unacknowledged finding fails `cdk synth` and `cdk deploy` (infra/rule-packs.ts).
addRulePacks(app);

app.synth();
