// The player's agent pages (served by `fogproof play` and `fogproof agent` on loopback): the
// lobby and the game page. Everything shown comes from the agent's local API, which gives the
// seat's own view only.
import { getJson, esc, shortKey } from '../common/api';

const app = document.getElementById('app') as HTMLElement;

async function main(): Promise<void> {
  app.innerHTML = `<header class="top"><a class="brand" href="/">fogproof</a><span class="grow"></span><span id="me" class="mono muted"></span></header>
<main id="main"><h1>Lobby</h1></main>`;
  const account = await getJson('/api/account');
  (document.getElementById('me') as HTMLElement).textContent = shortKey(account.id);
  (document.getElementById('main') as HTMLElement).insertAdjacentHTML('beforeend', `<p class="mono">${esc(account.id)}</p>`);
}

void main();
