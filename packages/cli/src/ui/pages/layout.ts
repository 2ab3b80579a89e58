import { Html, html } from '../html.js';

/** What every page's frame shows besides its content. */
export interface Frame {
  readonly title: string;
  /** The store URL with any password hidden. */
  readonly store: string;
  readonly actions: boolean;
  /** A session exists: the page offers to log out (with this CSRF token). */
  readonly csrf?: string;
  readonly refreshMs: number;
}

/** A whole page: the scripts and styles are files (the CSP allows no inline script or style). */
export function layout(frame: Frame, content: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fate · ${frame.title}</title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body data-refresh-ms="${frame.refreshMs}">
<header>
<nav><strong>fate</strong> <a href="/">Overview</a> <a href="/tx">Transactions</a></nav>
<span class="store">store <code>${frame.store}</code> · ${frame.actions ? 'actions allowed' : 'read-only'}
<span id="live-state" class="muted"></span></span>
${
  frame.csrf
    ? html`<form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="${frame.csrf}"><button type="submit">Log out</button></form>`
    : ''
}
</header>
<main>
<h1>${frame.title}</h1>
${content}
</main>
</body>
</html>
`;
}

/** A part of a page that the client script reloads from `src` every refresh period. */
export const live = (src: string, content: Html): Html =>
  html`<div id="live" data-live="${src}">${content}</div>`;

/** A message box: `kind` is `error`, `ok` or `note`. */
export const notice = (kind: 'error' | 'ok' | 'note', text: string | Html): Html =>
  html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;

export { Html };
