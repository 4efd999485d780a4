import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoApiKeyRepository } from '../../../shared/db/api-key-repository';
import { membershipKey } from '../../../shared/db/keys';
import { ManualClock } from '../../../shared/time/clock';
import { type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

const ACCESS_DENIED = { error: 'Access denied' };
const KEY_REFUSED = { error: 'Missing API key', message: 'Provide X-API-Key header' };
const WORKSPACE_LOST = {
  error: 'Authentication required',
  message: 'You are no longer a member of the workspace this session acts in; log in again',
};

interface MemberView {
  user_id: number;
  email: string;
  role: 'OWNER' | 'MEMBER';
}

describe('workspace members over HTTP', () => {
  let stack: TestStack;
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');

  beforeAll(async () => {
    stack = await startTestStack({ clock });
  });
  afterAll(async () => stack?.stop());

  const addMember = (owner: SignedUpUser, workspaceId: number | string, email: unknown) =>
    stack.call<{ member: MemberView }>('POST', `/workspaces/${workspaceId}/members/`, { token: owner.token, body: { email } });
  const listMembers = (caller: { token?: string; apiKey?: string }, workspaceId: number | string) =>
    stack.call<{ members: MemberView[] }>('GET', `/workspaces/${workspaceId}/members/`, caller);
  const removeMember = (caller: { token?: string; apiKey?: string }, workspaceId: number | string, userId: number | string) =>
    stack.call('DELETE', `/workspaces/${workspaceId}/members/${userId}/`, caller);

  /** Alice owns a workspace and has linked Bob to it. */
  async function ownerWithMember() {
    const alice = await signUp(stack);
    const bob = await signUp(stack);
    const added = await addMember(alice, alice.workspaceId, bob.email);
    expect(added.status).toBe(201);
    return { alice, bob };
  }

  it('links an existing user by email (any case) as a MEMBER, and lists the owner first', async () => {
    const signedUpAt = clock.now().toISOString();
    const alice = await signUp(stack);
    const carol = await signUp(stack);
    const bob = await signUp(stack);
    // Linked an hour later: the workspace still shows when it was created. (The clock goes back
    // after, whatever happens: the tests after this one read times from it.)
    clock.advance(3_600_000);
    let added: Awaited<ReturnType<typeof addMember>>;
    try {
      added = await addMember(alice, alice.workspaceId, `  ${bob.email.toUpperCase()} `);
      expect(added.status).toBe(201);
      expect(added.body).toEqual({ success: true, member: { user_id: bob.userId, email: bob.email, role: 'MEMBER' } });
      expect((await addMember(alice, alice.workspaceId, carol.email)).status).toBe(201);
    } finally {
      clock.set(signedUpAt);
    }

    const owner = { user_id: alice.userId, email: alice.email, role: 'OWNER' };
    const others = [
      { user_id: bob.userId, email: bob.email, role: 'MEMBER' },
      { user_id: carol.userId, email: carol.email, role: 'MEMBER' },
    ].sort((a, b) => a.user_id - b.user_id);
    const expected = { success: true, members: [owner, ...others] };
    const byOwner = await listMembers({ token: alice.token }, alice.workspaceId);
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toEqual(expected);
    // Any member may list them, with a session acting in another workspace or with an API key.
    const byMember = await listMembers({ token: bob.token }, alice.workspaceId);
    expect(byMember.status).toBe(200);
    expect(byMember.body).toEqual(expected);
    const bobKey = await createKey(stack, bob);
    expect((await listMembers({ apiKey: bobKey.key }, alice.workspaceId)).body).toEqual(expected);

    // The linked workspace shows among Bob's, with his role in it and its name.
    const workspaces = await stack.call('GET', '/workspaces/', { token: bob.token });
    expect(workspaces.body).toEqual({
      success: true,
      workspaces: [
        { id: bob.workspaceId, name: `${bob.email.split('@')[0]}'s workspace`, role: 'OWNER', created_at: signedUpAt, is_current: true },
        {
          id: alice.workspaceId,
          name: `${alice.email.split('@')[0]}'s workspace`,
          role: 'MEMBER',
          created_at: signedUpAt,
          is_current: false,
        },
      ].sort((a, b) => a.id - b.id),
    });
  });

  it('validates the email: 400 naming the field', async () => {
    const alice = await signUp(stack);
    const cases: [unknown, string][] = [
      [undefined, 'email is required'],
      ['', 'email is required'],
      ['not an email', 'email must be a valid email address'],
      [42, 'email must be a string'],
    ];
    for (const [email, error] of cases) {
      const response = await stack.call('POST', `/workspaces/${alice.workspaceId}/members/`, {
        token: alice.token,
        body: email === undefined ? {} : { email },
      });
      expect(response.status, String(email)).toBe(400);
      expect(response.body).toEqual({ error });
    }
  });

  it('answers 404 for an unknown email and 409 for a user already linked, the owner included', async () => {
    const { alice, bob } = await ownerWithMember();
    const unknown = await addMember(alice, alice.workspaceId, 'nobody-at-all@example.com');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'User not found' });
    for (const email of [bob.email, alice.email]) {
      const again = await addMember(alice, alice.workspaceId, email);
      expect(again.status, email).toBe(409);
      expect(again.body).toEqual({ error: 'User is already a member of this workspace' });
    }
  });

  it('lets only the owner add and remove members: a member, a stranger and an unknown workspace get 403', async () => {
    const { alice, bob } = await ownerWithMember();
    const stranger = await signUp(stack);
    const dave = await signUp(stack);

    // A member who is not the owner.
    const byMember = await addMember(bob, alice.workspaceId, dave.email);
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual(ACCESS_DENIED);
    // Another member or the owner: only the owner removes others (a member may remove only themselves, below).
    const carol = await signUp(stack);
    expect((await addMember(alice, alice.workspaceId, carol.email)).status).toBe(201);
    for (const target of [alice.userId, carol.userId]) {
      const removal = await removeMember({ token: bob.token }, alice.workspaceId, target);
      expect(removal.status).toBe(403);
      expect(removal.body).toEqual(ACCESS_DENIED);
    }
    expect((await removeMember({ token: alice.token }, alice.workspaceId, carol.userId)).status).toBe(200);

    // Not linked at all, a workspace that does not exist, and text that cannot be an id.
    for (const workspaceId of [alice.workspaceId, 987_654_321_012, 'abc']) {
      const add = await addMember(stranger, workspaceId, dave.email);
      const list = await listMembers({ token: stranger.token }, workspaceId);
      const remove = await removeMember({ token: stranger.token }, workspaceId, bob.userId);
      for (const response of [add, list, remove]) {
        expect(response.status, String(workspaceId)).toBe(403);
        expect(response.body).toEqual(ACCESS_DENIED);
      }
    }
    // The 403 comes before anything about the member.
    expect((await removeMember({ token: stranger.token }, alice.workspaceId, 'not-an-id')).status).toBe(403);
    // The unknown workspace is unknown to its would-be owner too.
    expect((await listMembers({ token: alice.token }, 987_654_321_012)).status).toBe(403);

    // Nothing changed.
    const members = await listMembers({ token: alice.token }, alice.workspaceId);
    expect(members.body.members.map((member) => member.user_id)).toEqual([alice.userId, bob.userId]);
  });

  it('lets a member leave a workspace they were linked to (unasked): their key for it is revoked, their own workspace untouched; the owner cannot leave', async () => {
    const { alice, bob } = await ownerWithMember();
    const bobsKeyThere = await stack.call<{ key: string }>('POST', '/api-keys/', { token: bob.token, body: { name: 'in Alice’s' } });
    expect(bobsKeyThere.status, bobsKeyThere.text).toBe(201);
    // Bob's session acts in his own workspace; the key above too. A key made in Alice's:
    const selected = await stack.call('POST', `/workspaces/${alice.workspaceId}/select/`, { token: bob.token });
    expect(selected.status, selected.text).toBe(200);
    const keyInAlices = await stack.call<{ key: string }>('POST', '/api-keys/', { token: bob.token, body: { name: 'acting in Alice’s' } });
    expect(keyInAlices.status, keyInAlices.text).toBe(201);
    expect((await stack.call('GET', '/public/lead-lists/', { apiKey: keyInAlices.body.key })).status).toBe(200);

    const left = await removeMember({ apiKey: bobsKeyThere.body.key }, alice.workspaceId, bob.userId);
    expect([left.status, left.body]).toEqual([200, { success: true }]);
    expect((await listMembers({ token: alice.token }, alice.workspaceId)).body.members.map((member) => member.user_id)).toEqual([alice.userId]);
    expect((await stack.call('GET', '/public/lead-lists/', { apiKey: keyInAlices.body.key })).body).toEqual(KEY_REFUSED);
    expect((await stack.call('GET', '/public/lead-lists/', { apiKey: bobsKeyThere.body.key })).status).toBe(200);
    // Gone already: 404, as for any user who is not a member; the owner cannot leave.
    expect((await removeMember({ token: alice.token }, alice.workspaceId, bob.userId)).status).toBe(404);
    const ownerLeaves = await removeMember({ token: alice.token }, alice.workspaceId, alice.userId);
    expect([ownerLeaves.status, ownerLeaves.body]).toEqual([409, { error: 'The workspace owner cannot be removed' }]);
    // Once out, Bob cannot leave again or remove anyone: 403, as a stranger.
    expect((await removeMember({ apiKey: bobsKeyThere.body.key }, alice.workspaceId, bob.userId)).status).toBe(403);
  });

  it('lets an owner manage any workspace they own, whatever workspace their credentials act in', async () => {
    const alice = await signUp(stack);
    const bob = await signUp(stack);
    const second = await stack.call<{ workspace: { id: number } }>('POST', '/workspaces/', { token: alice.token, body: { name: 'Second' } });
    const aliceKey = await createKey(stack, alice);
    const added = await stack.call('POST', `/workspaces/${second.body.workspace.id}/members/`, { apiKey: aliceKey.key, body: { email: bob.email } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ success: true, member: { user_id: bob.userId, email: bob.email, role: 'MEMBER' } });
    const workspaces = await stack.call<{ workspaces: { id: number; name: string; role: string }[] }>('GET', '/workspaces/', { token: bob.token });
    expect(workspaces.body.workspaces.find((w) => w.id === second.body.workspace.id)).toMatchObject({ name: 'Second', role: 'MEMBER' });
  });

  it('refuses to remove the owner (409) and answers 404 for a user who is not a member', async () => {
    const { alice } = await ownerWithMember();
    const stranger = await signUp(stack);
    const owner = await removeMember({ token: alice.token }, alice.workspaceId, alice.userId);
    expect(owner.status).toBe(409);
    expect(owner.body).toEqual({ error: 'The workspace owner cannot be removed' });
    for (const userId of [stranger.userId, 987_654_321_012, 'abc', 0]) {
      const response = await removeMember({ token: alice.token }, alice.workspaceId, userId);
      expect(response.status, String(userId)).toBe(404);
      expect(response.body).toEqual({ error: 'Member not found' });
    }
  });

  it("removes a member: their key for the workspace is refused at once, their session in it too, and their own workspace is untouched", async () => {
    const { alice, bob } = await ownerWithMember();
    const bobOwnKey = await createKey(stack, bob, 'own workspace');
    // Bob acts in Alice's workspace: his session switches to it, and a key made now belongs to it.
    const selected = await stack.call('POST', `/workspaces/${alice.workspaceId}/select/`, { token: bob.token });
    expect(selected.status).toBe(200);
    const bobKeyInAlices = await createKey(stack, bob, 'in alice');
    const secondKeyInAlices = await createKey(stack, bob, 'in alice too');
    const me = await stack.call('GET', '/auth/me/', { apiKey: bobKeyInAlices.key });
    expect(me.body).toMatchObject({ workspace_id: alice.workspaceId, auth: 'apiKey' });
    expect((await stack.call('GET', '/auth/me/', { token: bob.token })).body).toMatchObject({ workspace_id: alice.workspaceId });

    clock.advance(60_000);
    const removed = await removeMember({ token: alice.token }, alice.workspaceId, bob.userId);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });

    // The keys acting in Alice's workspace are refused on the very next request, on every kind of route.
    for (const key of [bobKeyInAlices.key, secondKeyInAlices.key]) {
      const after = await stack.call('GET', '/auth/me/', { apiKey: key });
      expect(after.status).toBe(401);
      expect(after.body).toEqual(KEY_REFUSED);
      const publicRoute = await stack.call('GET', '/public/lead-lists/', { apiKey: key });
      expect(publicRoute.status).toBe(401);
      expect(publicRoute.body).toEqual({ error: 'Missing API key', message: 'Provide X-API-Key header' });
    }
    // They show as revoked in Bob's list; his key for his own workspace is untouched.
    const keys = await stack.call<{ api_keys: { id: number; is_active: boolean; updated_at: string }[] }>('GET', '/api-keys/', { apiKey: bobOwnKey.key });
    expect(keys.status).toBe(200);
    expect(keys.body.api_keys.map((key) => [key.id, key.is_active, key.updated_at]).sort()).toEqual(
      [
        [bobOwnKey.id, true, '2026-11-23T10:00:00.000Z'],
        [bobKeyInAlices.id, false, '2026-11-23T10:01:00.000Z'],
        [secondKeyInAlices.id, false, '2026-11-23T10:01:00.000Z'],
      ].sort(),
    );

    // The session acting in Alice's workspace is refused, saying why; logging in again lands in his own.
    const session = await stack.call('GET', '/auth/me/', { token: bob.token });
    expect(session.status).toBe(401);
    expect(session.body).toEqual(WORKSPACE_LOST);
    const login = await stack.call<{ token: string; workspace_id: number }>('POST', '/auth/login/', { body: { email: bob.email, password: bob.password } });
    expect(login.body.workspace_id).toBe(bob.workspaceId);
    const fresh = { ...bob, token: login.body.token };
    const workspaces = await stack.call<{ workspaces: { id: number }[] }>('GET', '/workspaces/', { token: fresh.token });
    expect(workspaces.body.workspaces.map((w) => w.id)).toEqual([bob.workspaceId]);
    const back = await stack.call('POST', `/workspaces/${alice.workspaceId}/select/`, { token: fresh.token });
    expect(back.status).toBe(403);
    expect(back.body).toEqual(ACCESS_DENIED);
    const list = await listMembers({ token: fresh.token }, alice.workspaceId);
    expect(list.status).toBe(403);

    // Gone from the list; removing again is a 404; linking again works.
    expect((await listMembers({ token: alice.token }, alice.workspaceId)).body).toEqual({
      success: true,
      members: [{ user_id: alice.userId, email: alice.email, role: 'OWNER' }],
    });
    const again = await removeMember({ token: alice.token }, alice.workspaceId, bob.userId);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Member not found' });
    clock.advance(60_000);
    expect((await addMember(alice, alice.workspaceId, bob.email)).status).toBe(201);
    // The revoked keys stay revoked, and the session from before the removal stays refused: the
    // new link is not the one it was let in by (a stolen session does not come back with him).
    expect((await stack.call('GET', '/auth/me/', { apiKey: bobKeyInAlices.key })).status).toBe(401);
    const old = await stack.call('GET', '/auth/me/', { token: bob.token });
    expect([old.status, old.body]).toEqual([401, WORKSPACE_LOST]);
    // A session that selects the workspace after the new link acts in it.
    clock.advance(1_000);
    expect((await stack.call('POST', `/workspaces/${alice.workspaceId}/select/`, { token: fresh.token })).status).toBe(200);
    expect((await stack.call('GET', '/auth/me/', { token: fresh.token })).body).toMatchObject({ workspace_id: alice.workspaceId, auth: 'session' });
  });

  it('keeps workspaces apart: a member acts in either workspace, and only in the ones linked to them', async () => {
    const { alice, bob } = await ownerWithMember();
    const stranger = await signUp(stack);
    const aliceKey = await createKey(stack, alice);
    const created = await stack.call<{ lead_list: { id: number } }>('POST', '/public/lead-lists/', { apiKey: aliceKey.key, body: { name: "Alice's list" } });
    expect(created.status).toBe(201);
    const strangerKey = await createKey(stack, stranger);
    await stack.call('POST', '/public/lead-lists/', { apiKey: strangerKey.key, body: { name: "Stranger's list" } });

    const bobOwnKey = await createKey(stack, bob, 'own');
    await stack.call('POST', `/workspaces/${alice.workspaceId}/select/`, { token: bob.token });
    const bobKeyInAlices = await createKey(stack, bob, 'in alice');
    const names = async (apiKey: string) =>
      (await stack.call<{ searches: { name: string }[] }>('GET', '/public/lead-lists/', { apiKey })).body.searches.map((list) => list.name);
    expect(await names(bobKeyInAlices.key)).toEqual(["Alice's list"]);
    expect(await names(bobOwnKey.key)).toEqual([]);
    expect(await names(strangerKey.key)).toEqual(["Stranger's list"]);

    // Back to his own workspace with the same session.
    expect((await stack.call('POST', `/workspaces/${bob.workspaceId}/select/`, { token: bob.token })).status).toBe(200);
    expect((await stack.call('GET', '/auth/me/', { token: bob.token })).body).toMatchObject({ workspace_id: bob.workspaceId });
    // Not into the stranger's.
    expect((await stack.call('POST', `/workspaces/${stranger.workspaceId}/select/`, { token: bob.token })).status).toBe(403);

    // Removed from Alice's: his session acting in his own workspace is unaffected.
    expect((await removeMember({ token: alice.token }, alice.workspaceId, bob.userId)).status).toBe(200);
    expect((await stack.call('GET', '/auth/me/', { token: bob.token })).status).toBe(200);
    expect(await names(bobOwnKey.key)).toEqual([]);
    expect((await stack.call('GET', '/public/lead-lists/', { apiKey: bobKeyInAlices.key })).status).toBe(401);
  });

  it("logs a member in to a workspace they own, not to another's with a lower id", async () => {
    const alice = await signUp(stack);
    const bob = await signUp(stack);
    expect(alice.workspaceId).toBeLessThan(bob.workspaceId);
    await addMember(alice, alice.workspaceId, bob.email);
    const login = await stack.call('POST', '/auth/login/', { body: { email: bob.email, password: bob.password } });
    expect(login.status).toBe(200);
    expect(login.body.workspace_id).toBe(bob.workspaceId);
  });

  it('finishes a removal interrupted after the link went: the repeat answers 404 and revokes the keys', async () => {
    const { alice, bob } = await ownerWithMember();
    await stack.call('POST', `/workspaces/${alice.workspaceId}/select/`, { token: bob.token });
    const key = await createKey(stack, bob, 'in alice');
    // The first attempt deleted the link and failed before revoking.
    await stack.db.send(new DeleteCommand({ TableName: stack.tableName, Key: membershipKey(bob.userId, alice.workspaceId) }));
    expect((await stack.call('GET', '/auth/me/', { apiKey: key.key })).status).toBe(200);

    const repeat = await removeMember({ token: alice.token }, alice.workspaceId, bob.userId);
    expect(repeat.status).toBe(404);
    expect(repeat.body).toEqual({ error: 'Member not found' });
    expect((await stack.call('GET', '/auth/me/', { apiKey: key.key })).status).toBe(401);
  });

  it('finishes a leave interrupted after the link went: the repeat answers 403, as to a stranger, and revokes the keys', async () => {
    const { alice, bob } = await ownerWithMember();
    const own = await createKey(stack, bob, 'in his own');
    await stack.call('POST', `/workspaces/${alice.workspaceId}/select/`, { token: bob.token });
    const key = await createKey(stack, bob, 'in alice');
    // The first attempt deleted the link and failed before revoking.
    await stack.db.send(new DeleteCommand({ TableName: stack.tableName, Key: membershipKey(bob.userId, alice.workspaceId) }));
    expect((await stack.call('GET', '/auth/me/', { apiKey: key.key })).status).toBe(200);

    // Bob repeats it with his key of his own workspace (his session acted in Alice's, now refused).
    const repeat = await removeMember({ apiKey: own.key }, alice.workspaceId, bob.userId);
    expect([repeat.status, repeat.body]).toEqual([403, ACCESS_DENIED]);
    expect((await stack.call('GET', '/auth/me/', { apiKey: key.key })).status).toBe(401);
  });

  it('never creates a key for a workspace the user is not linked to', async () => {
    const { alice, bob } = await ownerWithMember();
    const keys = new DynamoApiKeyRepository(stack.db, stack.tableName);
    const now = clock.now().toISOString();
    const key = (id: number, workspaceId: number) => ({
      key: { id, userId: bob.userId, workspaceId, name: 'k', prefix: `${'ab'.repeat(5)}${id}`, isActive: true, lastUsed: null, createdAt: now, updatedAt: now, usageKeyId: 'u' },
      credential: { prefix: `${'ab'.repeat(5)}${id}`, keyId: id, userId: bob.userId, workspaceId, secretHash: 'h', usageKeyValue: 'v' },
    });
    const linked = key(91, alice.workspaceId);
    expect(await keys.create(linked.key, linked.credential, 25)).toBe('created');
    const stranger = await signUp(stack);
    const foreign = key(92, stranger.workspaceId);
    expect(await keys.create(foreign.key, foreign.credential, 25)).toBe('not_member');
    expect(await keys.getCredential(foreign.credential.prefix)).toBeUndefined();
    expect((await keys.listForUser(bob.userId)).map((k) => k.id)).toEqual([91]);
  });
});
