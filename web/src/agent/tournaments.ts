// The agent's tournaments panel: the server's tournaments (GET /api/tournament, lichess's
// groups), with Join for one this key is an entrant of and Withdraw for one it plays; once
// joined the agent plays its pairings as they come (each game opens like any other, on the
// event stream), and the standings show how it stands.
import { esc, getJson, postJson, type ServerJson } from '../common/api';
import { serverText } from '../common/words';
import { who } from './names';

/** One tournament of `GET /api/tournament` (the server's fields, passed on: not typed yet). */
function row(t: ServerJson): string {
  const clock = t.clock ? `${Math.round(t.clock.limit / 60)}+${t.clock.increment}` : '';
  const rounds = `${t.roundsStarted ?? 0}/${t.rounds ?? '?'}`;
  let action = '<span class="muted">not an entrant</span>';
  if (t.status === 'finished') action = '<span class="muted">over</span>';
  else if (t.playing) action = `<span class="ok">playing</span> <button type="button" data-tour="withdraw" data-id="${esc(t.id)}">Withdraw</button>`;
  else if (t.entrant) action = `<button type="button" class="primary" data-tour="join" data-id="${esc(t.id)}">Join</button>`;
  const standings = Array.isArray(t.standings) && t.standings.length && t.status !== 'joining'
    ? `<details><summary>Standings</summary><ol>${t.standings.map((s: ServerJson) => `<li>${who(s.player?.key, t.names)} <span class="muted">${esc(s.player?.name ?? '')}</span> ${esc(s.points)}</li>`).join('')}</ol></details>`
    : '';
  return `<tr data-tournament="${esc(t.id)}"><td>${esc(t.fullName ?? '')}</td><td>${esc(t.variant?.name ?? '')}</td><td>${esc(clock)}</td><td>${esc(t.status)} ${esc(rounds)}</td><td>${esc(t.nbPlayers ?? '')} players</td><td>${action}${standings}</td></tr>`;
}

/** Adds the panel to `main`; returns what stops its polling. */
export function tournamentsPanel(main: HTMLElement): () => void {
  main.insertAdjacentHTML(
    'beforeend',
    `<section class="panel" aria-label="Tournaments"><h2>Tournaments</h2>
<table><tbody id="tournaments"><tr><td class="muted">None.</td></tr></tbody></table>
<p id="tournament-msg" class="muted" role="status"></p></section>`,
  );
  const body = main.querySelector('#tournaments') as HTMLElement;
  const msg = main.querySelector('#tournament-msg') as HTMLElement;
  const draw = async () => {
    try {
      const l = await getJson<ServerJson>('/api/tournament');
      const all = [...(l.started ?? []), ...(l.created ?? []), ...(l.finished ?? [])];
      body.innerHTML = all.length ? all.map(row).join('') : '<tr><td class="muted">None.</td></tr>';
    } catch {
      // The server is unreachable for a moment (or keeps no log): the next poll tries again.
    }
  };
  body.addEventListener('click', (e) => {
    const b = (e.target as HTMLElement).closest('button[data-tour]') as HTMLButtonElement | null;
    if (!b) return;
    const act = b.dataset.tour as string;
    b.disabled = true;
    postJson(`/api/tournament/${b.dataset.id}/${act}`).then(
      () => {
        msg.textContent = act === 'join' ? 'Joined: your games open here as they are paired.' : 'Withdrawn.';
        void draw();
      },
      (err: Error) => {
        msg.textContent = `Refused: ${serverText(err.message)}`;
        b.disabled = false;
      },
    );
  });
  void draw();
  const timer = setInterval(() => void draw(), 3000);
  return () => clearInterval(timer);
}
