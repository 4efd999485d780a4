/**
 * The pages of the unsubscribe link: small, self-contained HTML (no script, no external resource;
 * the response's Content-Security-Policy forbids both). Nothing in them comes from the request.
 */

const page = (title: string, body: string): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style>
</head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>
`;

/** The GET page: asks for the click; its form posts the RFC 8058 field to the same URL. */
export const confirmPage = (): string =>
  page(
    'Unsubscribe',
    `<p>Stop receiving emails from this sender?</p>
<form method="post">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button>
</form>`,
  );

export const doneText = 'You are unsubscribed';
export const donePage = (): string => page(doneText, '<p>You will not receive further emails from this sender.</p>');

export const invalidLinkText = 'This unsubscribe link is not valid';
export const invalidLinkPage = (): string => page(invalidLinkText, '<p>Use the link exactly as it appears in the email.</p>');

export const notOneClickText = 'Nothing was changed';
export const notOneClickPage = (): string =>
  page(notOneClickText, '<p>An unsubscribe request posts <code>List-Unsubscribe=One-Click</code>. Open the link in a browser and press the button.</p>');

export const tooManyText = 'Too many requests';
export const tooManyPage = (retryAfterSeconds: number): string =>
  page(tooManyText, `<p>Please try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.</p>`);
