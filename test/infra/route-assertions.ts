import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { type AuthMode, FUNCTION_GROUPS, type FunctionGroup, type RegisteredRoute, isRateLimited } from '../../shared/http/route-table';
import {
  type CfnResource,
  flatten,
  resourcesOfType,
} from './template-helpers';

/** Assertions on the API Gateway methods a stack's routes make (stack.test.ts, stack-api.test.ts, stack-probe.test.ts). */
export const GROUPS = Object.keys(FUNCTION_GROUPS) as FunctionGroup[];
export const expectedAuthorizer = (auth: AuthMode) =>
  auth === 'none' ? undefined : auth === 'apiKey' ? 'ApiKeyAuthorizer' : 'CallerAuthorizer';

/** Full path of every API Gateway resource, by logical id. */
export function resourcePaths(template: Template): Map<string, string> {
  const resources = new Map(resourcesOfType(template, 'AWS::ApiGateway::Resource'));
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const resource = resources.get(id);
    if (!resource) return ''; // the API's root resource
    const parent = resource.Properties?.ParentId;
    const parentPath = 'Ref' in parent ? pathOf(parent.Ref) : '';
    const full = `${parentPath}/${resource.Properties?.PathPart}`;
    paths.set(id, full);
    return full;
  };
  for (const id of resources.keys()) pathOf(id);
  return paths;
}

/** The Method resource for a route, found by path and HTTP method. */
export function methodFor(template: Template, route: RegisteredRoute): CfnResource {
  const paths = resourcePaths(template);
  const matches = resourcesOfType(template, 'AWS::ApiGateway::Method').filter(
    ([, method]) => method.Properties?.HttpMethod === route.method && paths.get(method.Properties?.ResourceId.Ref) === route.path,
  );
  expect(matches, `${route.method} ${route.path}`).toHaveLength(1);
  return matches[0]?.[1] as CfnResource;
}

export function authorizerNames(template: Template): Map<string, CfnResource> {
  return new Map(resourcesOfType(template, 'AWS::ApiGateway::Authorizer').map(([id, resource]) => [id, resource]));
}

/** Every route has exactly its method, authorizer, API-key requirement and integration. */
export function expectRoutes(template: Template, routes: readonly RegisteredRoute[], stackName: string): void {
  const authorizers = authorizerNames(template);
  for (const route of routes) {
    const method = methodFor(template, route).Properties ?? {};
    const label = `${route.method} ${route.path}`;
    expect(method.ApiKeyRequired, label).toBe(isRateLimited(route.auth));
    const authorizer = expectedAuthorizer(route.auth);
    if (authorizer === undefined) {
      expect(method.AuthorizationType, label).toBe('NONE');
      expect(method.AuthorizerId, label).toBeUndefined();
    } else {
      expect(method.AuthorizationType, label).toBe('CUSTOM');
      expect(authorizers.get(method.AuthorizerId.Ref)?.Properties?.Name, label).toBe(authorizer);
    }
    expect(method.Integration.Type, label).toBe('AWS_PROXY');
    expect(method.Integration.IntegrationHttpMethod, label).toBe('POST');
    const functionName = `${stackName}-${route.group.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`;
    expect(flatten(method.Integration.Uri), label).toBe(
      `arn:\${AWS::Partition}:apigateway:\${AWS::Region}:lambda:path/2015-03-31/functions/arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${functionName}/invocations`,
    );
  }
  expect(resourcesOfType(template, 'AWS::ApiGateway::Method')).toHaveLength(routes.length);
  // Only the authorizers some route uses exist (CDK refuses to deploy an unattached one).
  const used = new Set(routes.map((route) => expectedAuthorizer(route.auth)).filter(Boolean));
  expect(new Set([...authorizers.values()].map((authorizer) => authorizer.Properties?.Name))).toEqual(used);
}
