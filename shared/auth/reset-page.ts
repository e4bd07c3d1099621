import { createHash } from 'node:crypto';
import type { HttpResponseInit } from '@azure/functions';
import { escapeHtml } from '../http/html.js';
import { RESET_PAGE_PATH } from './password-reset.js';

/**
 * The HTML of the password reset page: plain forms, no script, one inline stylesheet allowed by
 * its hash, so the page works without JavaScript under a CSP that allows nothing else.
 */

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f6f8;color:#1f2933;margin:0}
main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.4rem;margin:0 0 1rem}
label{display:block;margin:1rem 0 .3rem;font-weight:600}
input[type=password]{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #9aa5b1;border-radius:4px;font-size:1rem}
button{margin-top:1.5rem;width:100%;padding:.65rem;border:0;border-radius:4px;background:#1f6feb;color:#fff;font-size:1rem;cursor:pointer}
.error{background:#fdecea;color:#8a1c12;padding:.7rem;border-radius:4px}
.ok{background:#e6f4ea;color:#1e4620;padding:.7rem;border-radius:4px}
.hint{color:#52606d;font-size:.9rem}
`;

const STYLE_HASH = createHash('sha256').update(STYLE, 'utf8').digest('base64');

/** Headers of every reset page: nothing but the hashed stylesheet, no framing, no referrer (the code is in the URL). */
export const RESET_PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

function page(status: number, title: string, body: string): HttpResponseInit {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} - finwatch</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
  return { status, body: html, headers: { ...RESET_PAGE_HEADERS } };
}

/** The form: the email and code travel in hidden fields, the person types the new password twice. */
export function resetForm(
  email: string,
  code: string,
  minLength: number,
  problem?: string,
  status = 200,
): HttpResponseInit {
  const error = problem ? `<p class="error" role="alert" id="problem">${escapeHtml(problem)}</p>\n` : '';
  return page(
    status,
    'Set a new password',
    `${error}<p>For <strong id="account">${escapeHtml(email)}</strong>.</p>
<form method="post" action="${RESET_PAGE_PATH}">
<input type="hidden" name="email" value="${escapeHtml(email)}">
<input type="hidden" name="code" value="${escapeHtml(code)}">
<label for="newPassword">New password</label>
<input type="password" id="newPassword" name="newPassword" autocomplete="new-password" minlength="${minLength}" required>
<p class="hint">At least ${minLength} characters.</p>
<label for="repeatPassword">Repeat the new password</label>
<input type="password" id="repeatPassword" name="repeatPassword" autocomplete="new-password" minlength="${minLength}" required>
<button type="submit">Set password</button>
</form>`,
  );
}

export function resetDone(): HttpResponseInit {
  return page(
    200,
    'Password changed',
    `<p class="ok" role="status" id="result">Your password was changed. Sign in with your new password.</p>
<p>Devices signed in with the old password have been signed out. This link cannot be used again.</p>`,
  );
}

export function resetRefused(): HttpResponseInit {
  return page(
    400,
    'This reset link cannot be used',
    `<p class="error" role="alert" id="result">The link has expired, has already been used, or is incomplete.</p>
<p>Ask for a new one with "Forgot password?" on the sign-in screen. A link works once, for 30 minutes.</p>`,
  );
}

export function resetUnavailable(): HttpResponseInit {
  return page(
    403,
    'Password sign-in is disabled',
    '<p class="error" role="alert" id="result">This server does not use passwords; sign in with your organisation account.</p>',
  );
}
