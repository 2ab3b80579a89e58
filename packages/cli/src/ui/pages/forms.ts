import { FateErrorCode, type FateId, isFateError } from '@fate/core';
import { ACTIONS, runAction, type UiAction } from '../actions.js';
import { clip } from '../clip.js';
import { type Html, html } from '../html.js';
import type { UiContext } from '../ui-context.js';
import { notice } from './layout.js';
import type { TxRead } from './tx-page.js';

export function loginPage(next: string): Html {
  return html`<form method="post" action="/login" class="login">
<input type="hidden" name="next" value="${next}">
<label>token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Log in</button>
</form>
<p class="muted">The token is the one the console was started with (--token or $FATE_UI_TOKEN).</p>`;
}

/** Links to each action's confirmation page (the rules are checked when it runs). */
export function actionsBlock(id: FateId, read: TxRead): Html {
  if (read.kind === 'absent') return html``;
  const offered =
    read.kind === 'corrupt' ? ACTIONS.filter((a) => a.name === 'force-delete') : ACTIONS;
  return html`<section class="actions"><h2>Actions</h2><ul>${offered.map(
    (a) =>
      html`<li><a class="button" href="/tx/${id}/${a.name}">${a.label}…</a> <span class="muted">${a.explain}</span></li>`,
  )}</ul></section>`;
}

export function confirmPage(id: FateId, action: UiAction, read: TxRead, csrf: string): Html {
  const now =
    read.kind === 'view'
      ? `It is ${read.view.status} now.`
      : read.kind === 'corrupt'
        ? 'Its record is corrupt.'
        : 'It does not exist now.';
  return html`<p>${action.label} transaction <code>${id}</code>? ${now}</p>
<p class="muted">${action.explain}. Same rules and errors as <code>fate ${action.command.name}${action.values.force ? ' --force' : ''}</code>.</p>
<form method="post" action="/tx/${id}/${action.name}">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" class="danger">Yes, ${action.label.toLowerCase()}</button> <a href="/tx/${id}">No, back</a>
</form>`;
}

const HTTP_STATUS: Readonly<Record<string, number>> = {
  [FateErrorCode.NOT_FOUND]: 404,
  [FateErrorCode.ILLEGAL_STATUS]: 409,
  [FateErrorCode.CORRUPT_DATA]: 409,
  [FateErrorCode.TIMEOUT]: 409,
};

/** Runs the action and says what happened, as the CLI would; logs it either way. */
export async function runActionPage(
  ctx: UiContext,
  action: UiAction,
  id: FateId,
): Promise<{ status: number; content: Html }> {
  const back = html`<p><a href="/tx/${id}">back to the transaction</a> · <a href="/tx">transactions</a></p>`;
  try {
    const said = await runAction(ctx.store, action, id);
    ctx.log(`${action.name} ${id}: ${said}`);
    return { status: 200, content: html`${notice('ok', said)}${back}` };
  } catch (err) {
    const code = isFateError(err) ? err.code : undefined;
    const message = err instanceof Error ? err.message : String(err);
    ctx.log(`${action.name} ${id} refused: ${message}${code ? ` [${code}]` : ''}`);
    const text = `${clip(message, 1_000)}${code ? ` [${code}]` : ''}`;
    return {
      status: (code && HTTP_STATUS[code]) || 500,
      content: html`${notice('error', text)}${back}`,
    };
  }
}
