// The host site's pages (`fogproof serve`): lobby, live games, replays, ratings, tournaments,
// the ledger and the audit page. Only public information: nothing of a hidden board.
// (Scaffold entry point; the pages are built in web/src/host/.)
import { esc } from '../common/api';

const app = document.getElementById('app');
if (app) {
  app.innerHTML = `<header class="top"><a class="brand" href="/">fogproof</a></header>
<main><h1>${esc('fogproof')}</h1><p class="muted">The host's pages.</p></main>`;
}
