/** The authenticated user behind a request, resolved from an own or a directory token. */
export interface Caller {
  userId: string;
  email: string;
  username: string;
  /** From the database at request time, never from a token claim. */
  isAdmin: boolean;
  tokenKind: 'local' | 'directory';
  claims: Record<string, unknown>;
  token: string;
}
