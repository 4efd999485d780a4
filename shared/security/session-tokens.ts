import type { Clock } from '../time/clock';
import { SignJWT, jwtVerify } from 'jose';

export interface SessionClaims {
  userId: number;
  sessionId: string;
}

const ISSUER = 'outreach-service';
const AUDIENCE = 'outreach-session';

/** Signs and verifies session JWTs (HS256). The session item in DynamoDB is what makes logout real. */
export class SessionTokens {
  private readonly key: Uint8Array;

  /** The clock decides issue and expiry times, so tokens follow a moved clock like sessions do. */
  constructor(
    secret: string,
    private readonly clock: Clock,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async sign(claims: SessionClaims, expiresAt: Date): Promise<string> {
    return new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(claims.userId))
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(this.clock.now())
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.key);
  }

  /** The claims of a valid, unexpired token; undefined for anything else. */
  async verify(token: string): Promise<SessionClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'], currentDate: this.clock.now() });
      const userId = Number(payload.sub);
      if (!Number.isSafeInteger(userId) || typeof payload.sid !== 'string') return undefined;
      return { userId, sessionId: payload.sid };
    } catch {
      return undefined;
    }
  }
}
