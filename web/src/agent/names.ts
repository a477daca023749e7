// Display names on the agent's pages: a player is shown as "name (ed25519:…)", the name being
// the one its key signed (the agent checked the signature before passing it on: a host cannot
// make this page show a name the key did not sign), and the player's own name set here (the
// agent signs it with the key: POST /api/account).
import { esc, postJson } from '../common/api';
import type { Account, NameSet, Player, SignedName } from '../types';
import { nameOf, nameProblem, playerText, serverText } from '../common/words';

/** HTML of a player: the signed name in bold, then the short key (the whole key on hover). */
export function who(key: string | null | undefined, names?: { [key in string]?: SignedName } | null, player?: Partial<Player> | null): string {
  const name = nameOf(key, names, player);
  const text = playerText(key, null);
  return name
    ? `<span class="player-name" title="${esc(key)}"><strong>${esc(name)}</strong> <span class="mono muted">(${esc(text)})</span></span>`
    : `<span class="mono" title="${esc(key)}">${esc(text)}</span>`;
}

/**
 * The lobby's "Your name" panel: shows the name this key signed and lets the player choose
 * another; `done` is told the new account.
 */
export function namePanel(main: HTMLElement, account: Account | null, done: (account: Account) => void): void {
  main.insertAdjacentHTML(
    'beforeend',
    `<section class="panel" aria-label="Your name"><h2>Your name</h2>
<p class="muted">Shown beside your key (${esc(playerText(account?.id))}) on every page; your key signs it, so no host can change it.</p>
<div class="row"><label>Display name <input id="display-name" maxlength="64" size="24" value="${esc(account?.name ?? '')}" placeholder="letters, digits, - _ . '"></label>
<button id="set-name" type="button">Sign and set</button></div>
<p id="name-msg" class="muted" role="status">${account?.name ? `You are ${esc(account.name)}.` : 'You have no name yet: others see your key.'}</p></section>`,
  );
  const input = main.querySelector('#display-name') as HTMLInputElement;
  const msg = main.querySelector('#name-msg') as HTMLElement;
  (main.querySelector('#set-name') as HTMLElement).addEventListener('click', () => {
    const why = nameProblem(input.value);
    if (why) {
      msg.textContent = why;
      msg.classList.add('warn');
      return;
    }
    msg.classList.remove('warn');
    msg.textContent = 'Signing…';
    postJson<NameSet>('/api/account', { name: input.value }).then(
      (r) => {
        msg.textContent = `You are ${r.name}.`;
        done({ ...(account as Account), name: r.name, username: r.name, signedName: r.signedName });
      },
      (e: Error) => {
        msg.textContent = `Refused: ${serverText(e.message)}`;
        msg.classList.add('warn');
      },
    );
  });
}
