// The player's agent pages (served by `fogproof play` and `fogproof agent` on loopback): the
// lobby (`/`) and the game page (`/game/{id}`). Everything shown comes from the agent's local
// API (docs/SERVER.md section 11), which gives the seat's own view only: the page never sees
// more of a hidden board than the player may know.
import { getJson, postJson, followNdjson, esc, clockText, shortKey, ApiError, type ServerJson } from '../common/api';
import { Board, destsOf, boardSize, boardShown, type Side } from '../common/board';
import { numbered, announcement, role, moveUci } from '../common/notation';
import { readMove } from '../common/input';
import { checkOf } from '../common/check';
import { HELP, helpHtml } from '../common/help';
import { resultWords, serverText, setupWords, timeControlProblem, nameOf, playerText } from '../common/words';
import { namePanel } from './names';
import { tournamentsPanel } from './tournaments';
import type { DrawShape } from 'chessgroundx/draw';
import type { Account, Ask, AskKind, GameFull, GameStartGame, GameState, Inspection, Knows, SeatView } from '../types';
import { VARIANTS, variantName } from '../types/variants';

/** The part of the seat's knowledge of one game (`view.knows` is one game's, by its id). */
type KnowsKey = Knows extends infer U ? (U extends unknown ? keyof U : never) : never;
type KnowsOf<K extends KnowsKey> = Extract<Knows, Record<K, unknown>>[K];
function known<K extends KnowsKey>(view: SeatView | null | undefined, key: K): KnowsOf<K> | undefined {
  const k = view?.knows as Record<string, unknown> | undefined;
  return k?.[key] as KnowsOf<K> | undefined;
}

/** A colored square on a board (a chessgroundx shape). */
const mark = (sq: string, brush: string): DrawShape => ({ orig: sq as DrawShape['orig'], brush });

/** A line of the agent's event stream (`/api/stream/event`). */
type AgentEvent =
  | { type: 'gameStart'; game: GameStartGame }
  | { type: 'gameFinish'; game: ServerJson }
  | { type: 'challenge' | 'challengeCanceled' | 'challengeDeclined'; challenge: ServerJson; reason?: string };

const app = document.getElementById('app') as HTMLElement;
let account: Account | null = null;
/** What the current page must stop when the player navigates away. */
let cleanup: Array<() => void> = [];

function $(sel: string, root: ParentNode = document): HTMLElement {
  const el = root.querySelector(sel);
  if (!el) throw new Error(`no element ${sel}`);
  return el as HTMLElement;
}

function navigate(path: string): void {
  history.pushState(null, '', path);
  void route();
}

function theme(): void {
  const root = document.documentElement;
  const saved = localStorage.getItem('fogproof-theme');
  if (saved) root.dataset.theme = saved;
}

function shell(title: string): HTMLElement {
  app.innerHTML = `<header class="top"><a class="brand" href="/" data-link>fogproof</a>
<nav><a href="/" data-link>Lobby</a></nav><span class="grow"></span>
<button id="theme" type="button" title="Light or dark">Theme</button>
<span class="mono muted" title="${esc(account?.id)}">${account?.name ? `<strong class="player-name">${esc(account.name)}</strong> ` : ''}${esc(shortKey(account?.id))}</span></header>
<main id="main"><h1>${esc(title)}</h1></main>`;
  $('#theme').addEventListener('click', () => {
    const root = document.documentElement;
    const dark = root.dataset.theme ? root.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
    root.dataset.theme = dark ? 'light' : 'dark';
    localStorage.setItem('fogproof-theme', root.dataset.theme);
  });
  return $('#main');
}

document.addEventListener('click', (e) => {
  const a = (e.target as HTMLElement).closest('a[data-link]') as HTMLAnchorElement | null;
  if (a && a.origin === location.origin) {
    e.preventDefault();
    navigate(a.pathname);
  }
});
window.addEventListener('popstate', () => void route());

async function route(): Promise<void> {
  for (const f of cleanup) f();
  cleanup = [];
  if (!account) account = await getJson<Account>('/api/account');
  const m = /^\/game\/([0-9a-f]{64})$/.exec(location.pathname);
  if (m) gamePage(m[1]);
  else lobbyPage();
}

// ------------------------------------------------------------------------------ lobby

function lobbyPage(): void {
  const main = shell('Lobby');
  main.insertAdjacentHTML(
    'beforeend',
    `<section class="panel" aria-label="New game"><h2>New game</h2>
<div class="row">
<label>Game <select id="variant">${VARIANTS.map((v) => `<option value="${v.id}">${esc(v.name)}</option>`).join('')}</select></label>
<label>Minutes <input id="minutes" type="number" min="1" max="180" step="0.5" value="10" size="4"></label>
<label>Increment (s) <input id="increment" type="number" min="0" max="180" step="1" value="5" size="4"></label>
<label>Colour <select id="color"><option value="random">random</option><option value="white">white</option><option value="black">black</option></select></label>
<label><input id="rated" type="checkbox"> Rated</label>
</div>
<div class="row">
<button id="vs-bot" class="primary" type="button">Play the house bot</button>
<button id="seek" type="button">Create a seek (anyone)</button>
<label>or a key <input id="opponent" placeholder="ed25519:…" size="30"></label><button id="vs-key" type="button">Challenge</button>
</div><p id="lobby-msg" class="muted" role="status"></p>
<details id="lobby-help"><summary>How the games are played</summary>${VARIANTS.map((v) => `<h3>${esc(v.name)}</h3><p>${esc(HELP[v.id]?.summary ?? '')}</p>`).join('')}<p class="muted">Each game's page has its full rules.</p></details></section>
<section class="panel"><h2>Your games</h2><ul id="games"><li class="muted">None yet.</li></ul></section>
<section class="panel"><h2>Your challenges</h2><table><tbody id="challenges"><tr><td class="muted">None.</td></tr></tbody></table></section>
<section class="panel"><h2>Open seeks</h2><table><tbody id="seeks"><tr><td class="muted">None.</td></tr></tbody></table></section>
<section class="panel"><h2>Live games on the server</h2><table><tbody id="live"><tr><td class="muted">None.</td></tr></tbody></table></section>`,
  );
  namePanel(main, account, (a) => { account = a; });
  cleanup.push(tournamentsPanel(main));
  const msg = $('#lobby-msg');
  const games = new Map<string, GameStartGame>();
  const challenges = new Map<string, ServerJson>();
  let waitingFor: string | null = null;
  // Answers that arrive after the player left the lobby (an accept's answer races the game's
  // start, which opens the game page) have no lobby to draw into.
  let here = true;
  cleanup.push(() => { here = false; });

  const body = () => ({
    variant: ($('#variant') as HTMLSelectElement).value,
    clock_limit: Math.round(Number(($('#minutes') as HTMLInputElement).value) * 60),
    clock_increment: Number(($('#increment') as HTMLInputElement).value),
    color: ($('#color') as HTMLSelectElement).value,
    rated: ($('#rated') as HTMLInputElement).checked,
  });
  const send = async (target: string) => {
    const why = timeControlProblem(($('#minutes') as HTMLInputElement).value, ($('#increment') as HTMLInputElement).value);
    if (why) {
      msg.textContent = why;
      msg.classList.add('warn');
      return;
    }
    msg.classList.remove('warn');
    msg.textContent = 'Sending the challenge…';
    // Waiting from now: the game can start (and its gameStart arrive) before the answer does.
    waitingFor = 'sent';
    try {
      const r = await postJson<{ challenge?: { id?: string } }>(`/api/challenge/${encodeURIComponent(target)}`, body());
      if (waitingFor === 'sent') waitingFor = r.challenge?.id ?? 'sent';
      msg.textContent = `Challenge ${r.challenge?.id ?? ''} sent; the game opens when it is accepted.`;
    } catch (e) {
      waitingFor = null;
      msg.textContent = `Refused: ${serverText((e as Error).message)}`;
    }
  };
  $('#vs-bot').addEventListener('click', () => void send('bot'));
  $('#seek').addEventListener('click', () => void send('open'));
  $('#vs-key').addEventListener('click', () => void send(($('#opponent') as HTMLInputElement).value.trim()));

  const drawGames = () => {
    if (!here) return;
    const list = [...games.values()];
    $('#games').innerHTML = list.length
      ? list.map((g) => `<li><a href="/game/${esc(g.id)}" data-link>${esc(variantName(g.variant?.id))}</a> <span class="muted">${esc(g.stage ?? '')}${g.color ? ', you play ' + esc(g.color) : ''}</span> <span class="mono muted">${esc(g.id.slice(0, 12))}</span></li>`).join('')
      : '<li class="muted">None yet.</li>';
  };
  const drawChallenges = () => {
    if (!here) return;
    const list = [...challenges.values()];
    $('#challenges').innerHTML = list.length
      ? list.map((c) => {
          const mine = c.challenger?.id === account?.id;
          const who = mine ? `to ${c.destUser?.id ? playerText(c.destUser.id, nameOf(c.destUser.id, null, c.destUser)) : 'anyone'}` : `from ${playerText(c.challenger?.id, nameOf(c.challenger?.id, null, c.challenger))}`;
          const buttons = mine
            ? `<button data-act="cancel" data-id="${esc(c.id)}">Cancel</button>`
            : `<button data-act="accept" data-id="${esc(c.id)}" class="primary">Accept</button> <button data-act="decline" data-id="${esc(c.id)}">Decline</button>`;
          const umpire = c.umpire ? `umpire ${shortKey(c.umpire)}` : 'no umpire';
          return `<tr><td>${esc(variantName(c.variant?.id ?? c.variant?.key ?? ''))}</td><td>${esc(c.timeControl?.show ?? '')}</td><td>${c.rated ? 'rated' : 'casual'}</td><td>${esc(who)}</td><td class="mono muted">${esc(umpire)}</td><td>${buttons}</td></tr>`;
        }).join('')
      : '<tr><td class="muted">None.</td></tr>';
  };
  $('#challenges').addEventListener('click', (e) => {
    const b = (e.target as HTMLElement).closest('button[data-act]') as HTMLButtonElement | null;
    if (!b) return;
    const id = b.dataset.id as string;
    if (b.dataset.act === 'accept') waitingFor = id;
    postJson(`/api/challenge/${id}/${b.dataset.act}`).then(
      () => { if (b.dataset.act !== 'accept') challenges.delete(id); drawChallenges(); },
      (err: Error) => { msg.textContent = `Refused: ${serverText(err.message)}`; },
    );
  });
  $('#seeks').addEventListener('click', (e) => {
    const b = (e.target as HTMLElement).closest('button[data-seek]') as HTMLButtonElement | null;
    if (!b) return;
    waitingFor = b.dataset.seek as string;
    postJson(`/api/challenge/${waitingFor}/accept`).catch((err: Error) => { msg.textContent = `Refused: ${serverText(err.message)}`; });
  });

  const stream = followNdjson<AgentEvent>('/api/stream/event', (e) => {
    if (e.type === 'gameStart') {
      const isNew = !games.has(e.game.id);
      games.set(e.game.id, e.game);
      drawGames();
      // The game our challenge (or the seek we accepted) became: open it.
      if (isNew && waitingFor) {
        waitingFor = null;
        navigate(`/game/${e.game.id}`);
        return false;
      }
    } else if (e.type === 'gameFinish') {
      const g = games.get(e.game?.id);
      if (g) { g.stage = 'finished'; drawGames(); }
    } else if (e.type === 'challenge') {
      if (e.challenge.status === 'open' || e.challenge.status === 'created') challenges.set(e.challenge.id, e.challenge);
      else challenges.delete(e.challenge.id);
      drawChallenges();
    } else if (e.type === 'challengeCanceled' || e.type === 'challengeDeclined') {
      challenges.delete(e.challenge?.id);
      drawChallenges();
      if (waitingFor === e.challenge?.id) { msg.textContent = `The challenge was ${e.type === 'challengeDeclined' ? 'declined' : 'canceled'}${e.reason ? ': ' + e.reason : ''}.`; waitingFor = null; }
    }
  });
  cleanup.push(() => stream.stop());

  const pollLobby = async () => {
    try {
      const l = await getJson<ServerJson>('/api/lobby');
      if (!here) return;
      const seeks = (l.seeks ?? []) as ServerJson[];
      $('#seeks').innerHTML = seeks.length
        ? seeks.map((s) => `<tr><td>${esc(variantName(s.variant?.key ?? s.variant ?? ''))}</td><td>${esc(s.timeControl?.show ?? '')}</td><td>${s.rated ? 'rated' : 'casual'}</td><td class="mono">${esc(playerText(s.challenger?.id, nameOf(s.challenger?.id, l.names, s.challenger)))}</td><td class="mono muted">${esc(s.umpire ? 'umpire ' + shortKey(s.umpire) : 'no umpire')}</td><td>${s.challenger?.id === account?.id ? '<span class="muted">yours</span>' : `<button data-seek="${esc(s.id)}">Accept</button>`}</td></tr>`).join('')
        : '<tr><td class="muted">None.</td></tr>';
      const live = (l.live ?? []) as ServerJson[];
      $('#live').innerHTML = live.length
        ? live.map((g) => `<tr><td>${esc(variantName(g.variant))}</td><td class="mono">${esc(playerText(g.white, nameOf(g.white, l.names)))} – ${esc(playerText(g.black, nameOf(g.black, l.names)))}</td><td class="mono">${esc(clockText(g.white_ms ?? 0))} / ${esc(clockText(g.black_ms ?? 0))}</td></tr>`).join('')
        : '<tr><td class="muted">None.</td></tr>';
    } catch {
      // The server is unreachable for a moment: the next poll tries again.
    }
  };
  void pollLobby();
  const timer = setInterval(() => void pollLobby(), 4000);
  cleanup.push(() => clearInterval(timer));
}

// ------------------------------------------------------------------------------ game

function gamePage(id: string): void {
  const main = shell('Game');
  main.innerHTML = `<div class="game">
<section class="board-col">
<div class="player" id="top-player"></div>
<div class="board-box"><div id="board"></div></div>
<div class="player" id="bottom-player"></div>
<div class="row board-tools">
<button type="button" id="flip" title="Turn the board around">Flip</button>
<button type="button" id="step-first" title="First known position" aria-label="First">«</button>
<button type="button" id="step-back" title="Back one move (left arrow)" aria-label="Back">‹</button>
<span id="step-at" class="muted" aria-live="polite"></span>
<button type="button" id="step-fwd" title="Forward one move (right arrow)" aria-label="Forward">›</button>
<button type="button" id="step-live" title="The game now" aria-label="Latest">»</button>
<label title="Move sounds (off unless you turn them on)"><input type="checkbox" id="sound"> Sound</label>
</div>
<p id="material" class="muted"></p>
</section>
<section class="side-col">
<div class="panel"><h1 id="title">Game</h1><p id="status" role="status" aria-live="polite"></p>
<p id="check" class="warn" aria-live="assertive"></p>
<div id="ask"></div>
<form id="move-form" class="row" autocomplete="off"><label for="move-input" id="move-label">Move</label>
<input id="move-input" name="move" placeholder="e2e4" size="10" spellcheck="false" autocapitalize="off">
<button type="submit" class="primary" id="move-submit">Play</button></form>
<p id="error" class="warn" role="alert"></p>
<div class="row"><button type="button" id="draw">Offer draw</button><button type="button" id="resign">Resign</button></div>
<p id="draw-offer"></p>
</div>
<div class="panel end-screen" id="verdict-panel" hidden><h2>The end</h2><p id="end-words" class="verdict"></p>
<section id="final" hidden aria-label="The whole board"><h3 id="final-title">The whole board at the end</h3><div id="final-setups"></div>
<div class="row" role="tablist"><button type="button" role="tab" id="final-end" aria-selected="true">At the end</button><button type="button" role="tab" id="final-start" aria-selected="false">When play began</button></div>
<div class="final-board-box"><div id="final-board"></div></div></section>
<div id="verdict"></div>
<p class="row" id="end-links"></p></div>
<div class="panel" id="knows"></div>
<div class="panel"><h2 id="moves-title">Moves</h2><div class="moves" id="moves"></div></div>
<details class="panel" id="help"><summary>How to play</summary><div id="help-text"></div></details>
</section></div>`;
  let board: Board | null = null;
  /** Whether the end screen's whole board is drawn (once, from the final record). */
  let finalShown = false;
  let state: GameState | null = null;
  let full: GameFull | null = null;
  let stateAt = 0;
  let variant = 'chess';
  const errorBox = $('#error');
  const showError = (e: unknown) => { errorBox.textContent = e instanceof ApiError || e instanceof Error ? serverText(e.message) : String(e); };

  // The positions this page has seen, oldest first, kept for the tab's life (sessionStorage):
  // stepping back and forth shows what the seat knew then, never more.
  const histKey = `fogproof-history-${id}`;
  let history: Array<{ board: string; last?: [string, string] }> = [];
  try { history = JSON.parse(sessionStorage.getItem(histKey) ?? '[]'); } catch { history = []; }
  let viewing: number | null = null; // null: the game now
  const sound = $('#sound') as HTMLInputElement;
  sound.checked = localStorage.getItem('fogproof-sound') === 'on';
  sound.addEventListener('change', () => {
    localStorage.setItem('fogproof-sound', sound.checked ? 'on' : 'off');
    if (sound.checked) beep(660, 0.05);
  });

  const play = async (text: string) => {
    errorBox.textContent = '';
    try {
      await postJson(`/api/bot/game/${id}/move/${encodeURIComponent(text)}`);
      ($('#move-input') as HTMLInputElement).value = '';
    } catch (e) {
      showError(e);
      if (state) render(state);
    }
  };
  const chooseAmong = (texts: string[]) => {
    $('#ask').insertAdjacentHTML('beforeend', `<div class="choices" id="choices"><p>Which one?</p>${texts.map((t) => `<button type="button" data-text="${esc(t)}">${esc(t)}</button>`).join('')}</div>`);
  };
  $('#ask').addEventListener('click', (e) => {
    const b = (e.target as HTMLElement).closest('button[data-text]') as HTMLButtonElement | null;
    if (b) void play(b.dataset.text as string);
  });
  $('#move-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const typed = ($('#move-input') as HTMLInputElement).value.trim();
    if (!typed || !state) return;
    const r = readMove(typed, state.ask?.moves ?? [], state.view?.board ?? null, boardSize(variant), state.side ?? 'white');
    if ('error' in r) errorBox.textContent = r.error;
    else void play(r.text);
  });
  $('#resign').addEventListener('click', () => {
    if (confirm('Resign this game?')) postJson(`/api/bot/game/${id}/resign`).catch(showError);
  });
  $('#draw').addEventListener('click', () => postJson(`/api/bot/game/${id}/draw/yes`).catch(showError));
  $('#flip').addEventListener('click', () => { board?.flip(); players(); });
  const step = (to: number | null) => {
    viewing = to === null || to >= history.length - 1 ? null : Math.max(0, to);
    if (state) render(state);
  };
  $('#step-first').addEventListener('click', () => step(0));
  $('#step-back').addEventListener('click', () => step((viewing ?? history.length - 1) - 1));
  $('#step-fwd').addEventListener('click', () => step(viewing === null ? null : viewing + 1));
  $('#step-live').addEventListener('click', () => step(null));
  const onKey = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === 'ArrowLeft') step((viewing ?? history.length - 1) - 1);
    else if (e.key === 'ArrowRight') step(viewing === null ? null : viewing + 1);
    else return;
    e.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  cleanup.push(() => document.removeEventListener('keydown', onKey));

  // Setup forms pick squares on the board: the field that has the focus (or the next empty one).
  let pickSquare: ((sq: string) => void) | null = null;
  const onBoardMove = (orig: string, dest: string) => {
    const texts: string[] = (state?.ask?.moves ?? []).filter((t: string) => t.startsWith(orig + dest));
    if (texts.length === 1) void play(texts[0]);
    else if (texts.length > 1) chooseAmong(texts);
  };

  const clockLine = (side: Side): string => {
    if (!state?.clock) return '';
    const c = state.clock;
    let ms = side === 'white' ? c.white_ms : c.black_ms;
    const running = c.running === side && state.stage === 'started';
    if (running) ms -= Date.now() - stateAt;
    return `<span class="clock${running ? ' running' : ''}" data-clock="${side}">${esc(clockText(ms))}</span>`;
  };
  const players = () => {
    if (!state) return;
    const me: Side = state.side ?? 'white';
    const them: Side = me === 'white' ? 'black' : 'white';
    const bottom: Side = board?.orientation() ?? me;
    const top: Side = bottom === 'white' ? 'black' : 'white';
    const name = (s: Side) => (s === me ? 'You' : state?.[s] === account?.bot ? 'House bot' : 'Opponent');
    const signed = (s: Side) => nameOf(state?.[s], state?.names);
    const line = (s: Side) => `<span><strong>${esc(name(s))}</strong> <span class="muted">(${s})</span> ${signed(s) ? `<span class="player-name">${esc(signed(s))}</span> ` : ''}<span class="mono muted">${esc(shortKey(state?.[s]))}</span></span>${clockLine(s)}`;
    void them;
    $('#top-player').innerHTML = line(top);
    $('#bottom-player').innerHTML = line(bottom);
  };
  const tick = setInterval(players, 200);
  cleanup.push(() => clearInterval(tick));

  const render = (s: GameState) => {
    const before = state;
    state = s;
    variant = full?.variant?.id ?? s.view?.variant ?? 'chess';
    const side: Side = s.side ?? 'white';
    if (!board && s.view) {
      board = new Board($('#board'), {
        variant,
        side,
        onMove: onBoardMove,
        onSelect: (sq) => pickSquare?.(sq),
        premove: variant === 'chess',
      });
      $('#help-text').innerHTML = helpHtml(variant);
    }
    $('#title').textContent = variantName(variant);
    document.title = `${variantName(variant)}: fogproof`;
    const ask = s.ask;
    const moves: string[] = ask?.moves ?? [];
    const size = boardSize(variant);
    // The positions seen: a new board string is a new step.
    const boardNow: string | null = s.view?.board && s.view.board !== '-' ? s.view.board : null;
    if (boardNow && history[history.length - 1]?.board !== boardNow) {
      const prev = history[history.length - 1]?.board;
      history.push({ board: boardNow, last: lastMove(variant, s) });
      if (history.length > 2000) history = history.slice(-2000);
      try { sessionStorage.setItem(histKey, JSON.stringify(history)); } catch { /* full: keep it in memory */ }
      if (prev && before && sound.checked) {
        const count = (b: string) => (b.split(' ')[0].match(/[a-zA-Z?]/g) ?? []).length;
        beep(count(boardNow) < count(prev) ? 330 : 520, 0.08);
      }
    }
    const live = viewing === null;
    const check = checkOf(variant, s);
    // Square moves go on the board; the rest (6x6's Life Freeze and end of turn) are buttons.
    const marks = boardMarks(variant, s.view);
    if (board && s.view) {
      if (live) {
        board.set(boardShown(variant, s.view.board), s.stage === 'started' ? destsOf(moves, size) : new Map(), {
          lastMove: lastMove(variant, s),
          marks,
          check: check.mine ? side : check.theirs && OPEN.has(variant) ? (side === 'white' ? 'black' : 'white') : null,
          live: s.stage === 'started',
        });
        if (s.stage === 'started' && kindOf(ask) === 'move') board.playPremove();
      } else {
        const h = history[viewing as number];
        board.set(h.board, new Map(), { lastMove: h.last });
      }
    }
    $('#step-at').textContent = history.length ? (live ? `move ${history.length - 1} (now)` : `move ${viewing} of ${history.length - 1}`) : '';
    $('#material').textContent = s.view?.board && s.view.board !== '-' ? materialText(variant, s.view.board, side) : '';
    players();
    // What is asked.
    const askBox = $('#ask');
    askBox.innerHTML = '';
    pickSquare = null;
    const kind: string | undefined = ask?.kind;
    ($('#move-label') as HTMLElement).textContent = 'Move';
    $('#move-input').setAttribute('placeholder', variant === 'kriegspiel' ? 'e2e4 or e4 (an attempt)' : variant === 'secretchess6' ? 'b1d3, freeze-c2, end-turn' : 'e2e4, e4, Nf3');
    const moveForm = $('#move-form');
    moveForm.hidden = !(kind === 'move' || kind === 'attempt');
    let status = '';
    if (s.stage === 'started') {
      if (kind === 'attempt') status = 'Your attempt: the umpire answers legal or illegal.';
      else if (kind === 'move') status = 'Your move.';
      else if (kind === 'intrigue-setup') status = 'Choose your secret setup.';
      else if (kind === 'secretchess6-setup') status = 'Choose your formation and false squares.';
      else if (kind === 'secretchess6-tiebreak') status = 'Scores are level: the tie-break.';
      else status = 'Waiting for the opponent (or the umpire).';
    } else if (s.stage === 'over') status = `${resultWords(s.result, s.reason, s.side)} Waiting for the final record…`;
    else if (s.stage === 'finished') status = resultWords(s.result, s.reason, s.side);
    else status = `Stopped: ${s.faults.join('; ')}`;
    if (!live) status = `Looking back (move ${viewing} of ${history.length - 1}). ${status}`;
    $('#status').textContent = status;
    // Which question the page is showing (tests wait for it before answering; the agent's API
    // may know a question a moment before the page does).
    app.dataset.ask = s.stage === 'started' && s.ask ? String(s.ask.id) : '';
    $('#check').textContent = s.stage !== 'started' ? '' : check.mine ? 'Check! Your king is attacked.' : check.decoy ? 'Check on your decoy.' : check.theirs ? 'You give check.' : '';
    if (kind === 'move' || kind === 'attempt') {
      const special = moves.filter((t) => !/^[a-h][1-8][a-h][1-8]/.test(t));
      if (special.length) askBox.innerHTML = `<div class="choices">${special.map((t) => `<button type="button" data-text="${esc(t)}">${esc(t === 'end-turn' ? 'End turn' : t.startsWith('freeze-') ? 'Life Freeze ' + t.slice(7) : t)}</button>`).join('')}</div>`;
      askBox.insertAdjacentHTML('beforeend', `<details><summary>${moves.length} ${kind === 'attempt' ? 'attempts possible' : 'legal moves'}</summary><p class="mono">${esc(moves.join(' '))}</p></details>`);
    } else if (kind === 'intrigue-setup') askBox.innerHTML = intrigueSetupForm(side);
    else if (kind === 'secretchess6-setup') askBox.innerHTML = sixSetupForm(ask?.max_false_squares ?? 0, side);
    else if (kind === 'secretchess6-tiebreak') askBox.innerHTML = sixTieBreakForm(ask?.opponent_turns ?? 0, side);
    const setupForm = askBox.querySelector('form[data-setup]') as HTMLFormElement | null;
    if (setupForm) pickSquare = setupPicker(setupForm, side, ask?.max_false_squares ?? 0, board);
    setupForm?.addEventListener('submit', (e) => {
      e.preventDefault();
      const fd = new FormData(setupForm);
      const words = (k: string) => String(fd.get(k) ?? '').split(/[\s,]+/).filter(Boolean);
      let bodyJson: Record<string, unknown>;
      let path = 'setup';
      if (setupForm.dataset.setup === 'intrigue') bodyJson = { king: String(fd.get('king')).trim().toLowerCase(), informer: String(fd.get('informer')).trim().toLowerCase(), queen_on_king_square: fd.get('queen') === 'on' };
      else if (setupForm.dataset.setup === 'six') bodyJson = { formation: formationOf(setupForm, side), false_squares: words('false_squares').map((w) => w.toLowerCase()) };
      else { path = 'tiebreak'; bodyJson = { formation: formationOf(setupForm, side === 'white' ? 'black' : 'white'), moves: words('moves') }; }
      postJson(`/api/bot/game/${id}/${path}`, bodyJson).then(() => { errorBox.textContent = ''; }, showError);
    });
    // Draw offers.
    const offer = $('#draw-offer');
    if (s.drawOffer && s.drawOffer !== side) offer.innerHTML = `<strong>The opponent offers a draw.</strong> <button type="button" id="draw-accept">Accept the draw</button> <span class="muted">(a move declines it)</span>`;
    else if (s.drawOffer === side) offer.textContent = 'You offer a draw.';
    else offer.textContent = '';
    document.getElementById('draw-accept')?.addEventListener('click', () => postJson(`/api/bot/game/${id}/draw/yes`).catch(showError));
    ($('#draw') as HTMLButtonElement).disabled = s.stage !== 'started';
    ($('#resign') as HTMLButtonElement).disabled = s.stage !== 'started';
    if (s.refused) errorBox.textContent = `Refused: ${serverText(s.refused)}`;
    else if (s.stage !== 'started' && !before?.stage?.match(/over|finished|stopped/)) errorBox.textContent = '';
    $('#knows').innerHTML = knowsPanel(variant, s);
    drawMoves(variant, s);
    drawVerdict(s);
    // The logs follow the game: the latest line in sight.
    for (const el of document.querySelectorAll<HTMLElement>('#moves, #announcements, .log')) el.scrollTop = el.scrollHeight;
  };

  const drawMoves = (variant: string, s: GameState) => {
    const box = $('#moves');
    const intrigue = known(s.view, 'intrigue');
    if (modeOf(variant) === 'open' || (variant === 'intrigue' && intrigue?.moves)) {
      const list: string[] = variant === 'intrigue' && intrigue ? intrigue.moves.map((m) => moveUci(m)) : s.san;
      $('#moves-title').textContent = variant === 'chess' ? 'Moves (SAN)' : 'Moves (both sides, public)';
      box.innerHTML = list.length ? `<ol>${numbered(list).map(([, w, b]) => `<li>${esc(w ?? '…')} ${esc(b ?? '')}</li>`).join('')}</ol>` : '<p class="muted">No move yet.</p>';
    } else {
      $('#moves-title').textContent = variant === 'kriegspiel' ? 'Your attempts' : 'Your moves, as sent';
      const sent = s.sent.filter((m) => !m.text.startsWith('{'));
      box.innerHTML = sent.length
        ? `<ol>${sent.map((m) => `<li class="${m.refused ? 'warn' : ''}">${esc(m.text)}${m.refused ? ' (illegal)' : ''}</li>`).join('')}</ol>`
        : '<p class="muted">Nothing yet.</p>';
    }
  };

  const drawVerdict = (s: GameState) => {
    const panel = $('#verdict-panel');
    if (s.stage === 'started') { panel.hidden = true; return; }
    panel.hidden = false;
    $('#end-words').textContent = resultWords(s.result, s.reason, s.side);
    const v = s.verdict;
    let text = '';
    if (s.stage === 'over') text += '<p class="muted">Openings and disclosures are being exchanged; the record is not final yet.</p>';
    text += revealedText(variant, s);
    if (v) text += verdictText(v);
    if (s.record) text += `<p>Your copy of the record: <span class="mono">${esc(s.record)}</span> (check it offline: <span class="mono">fogproof verify FILE</span>).</p>`;
    for (const f of s.faults) text += `<p class="warn">${esc(f)}</p>`;
    $('#verdict').innerHTML = text;
    if (s.final && !finalShown) finalShown = showFinal(variant, s, $('#final'));
    const links = $('#end-links');
    if (!links.dataset.done && account?.server) {
      const server = account.server.replace(/\/$/, '');
      const final = s.stage === 'finished';
      links.innerHTML = `${final ? `<a id="replay-link" href="${esc(server)}/game/${esc(id)}" target="_blank" rel="noopener">Replay with the full board</a> <a id="record-link" href="${esc(server)}/api/match/${esc(id)}/record">Record (.rec)</a>` : ''}
<button type="button" id="rematch" class="primary">Rematch</button>`;
      if (final) links.dataset.done = '1';
      document.getElementById('rematch')?.addEventListener('click', () => void rematch(s));
    }
  };

  const rematch = async (s: GameState) => {
    const me = s.side ?? 'white';
    const them = me === 'white' ? s.black : s.white;
    const target = them && them === account?.bot ? 'bot' : them ?? 'open';
    // gameFull's clock is in milliseconds.
    const initial = Number(full?.clock.initial ?? 300000);
    const inc = Number(full?.clock.increment ?? 0);
    const body = {
      variant,
      clock_limit: Math.round(initial / 1000),
      clock_increment: Math.round(inc / 1000),
      color: me === 'white' ? 'black' : 'white',
      options: full?.options ?? undefined,
    };
    const startsBefore = new Set<string>();
    errorBox.textContent = 'Rematch offered: waiting for the opponent…';
    const watch = followNdjson<AgentEvent>('/api/stream/event', (e) => {
      if (e.type === 'gameStart' && e.game?.id && e.game.id !== id && !startsBefore.has(e.game.id)) {
        if (sent) { navigate(`/game/${e.game.id}`); return false; }
        startsBefore.add(e.game.id);
      }
      if ((e.type === 'challengeDeclined' || e.type === 'challengeCanceled') && e.challenge?.id === sentId) {
        errorBox.textContent = `The rematch was ${e.type === 'challengeDeclined' ? 'declined' : 'canceled'}.`;
        return false;
      }
    });
    cleanup.push(() => watch.stop());
    let sent = false;
    let sentId = '';
    // The event stream first replays the games already known: give it a moment.
    await new Promise((r) => setTimeout(r, 300));
    try {
      const r = await postJson<{ challenge?: { id?: string }; id?: string }>(`/api/challenge/${encodeURIComponent(target)}`, body);
      sentId = r.challenge?.id ?? r.id ?? '';
      sent = true;
    } catch (e) {
      watch.stop();
      showError(e);
    }
  };

  const stream = followNdjson<GameFull | GameState>(`/api/bot/game/stream/${id}`, (v) => {
    if (v.type === 'gameFull') { full = v; v = v.state; }
    if (v.type !== 'gameState') return;
    stateAt = Date.now();
    render(v as GameState);
    if (v.stage === 'finished' || v.stage === 'stopped') return false;
  }, {
    onError: (e) => {
      if (e instanceof ApiError && e.status === 404) {
        $('#title').textContent = 'No such game';
        $('#status').textContent = `Your agent has no game ${id.slice(0, 16)}…: it may belong to another agent, or the address is mistyped.`;
        $('#move-form').hidden = true;
        for (const b of ['#draw', '#resign']) ($(b) as HTMLButtonElement).disabled = true;
        document.title = 'No such game: fogproof';
        return false;
      }
      showError(e);
    },
  });
  cleanup.push(() => stream.stop());
}

/** How a game is adjudicated (`open`: every move public, both sides check them). */
const modeOf = (variant: string): string | undefined => VARIANTS.find((v) => v.id === variant)?.mode;

/** The games whose moves are public (open and owner-answered games: R-E5, R-I4). */
const OPEN = new Set<string>(VARIANTS.filter((v) => v.mode !== 'umpire').map((v) => v.id));

function kindOf(ask: Ask | null | undefined): AskKind | undefined {
  return ask?.kind;
}

let audio: AudioContext | null = null;
/** A short tone (WebAudio, no sound files): a move, or a lower one for a capture. */
function beep(freq: number, seconds: number): void {
  try {
    audio ??= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + seconds);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + seconds);
  } catch {
    // No audio here: silence.
  }
}


const VALUES: Record<string, number> = { p: 1, n: 3, b: 3, r: 5, q: 9, k: 0, m: 8, a: 7, c: 6, h: 7, d: 7, s: 3, y: 3, o: 4 };

/** The material on the board, by the usual points (fairy men by their strength). */
function materialText(variant: string, board: string, side: Side): string {
  let white = 0;
  let black = 0;
  let whiteMen = 0;
  let blackMen = 0;
  for (const c of board.split(' ')[0]) {
    if (!/[a-zA-Z]/.test(c)) continue;
    let l = c.toLowerCase();
    if (variant === 'espionage' && l === 's') l = 'q';
    if (variant === 'espionage' && l === 'c') l = 'o';
    const v = VALUES[l] ?? 0;
    if (c === c.toUpperCase()) { white += v; whiteMen++; } else { black += v; blackMen++; }
  }
  if (!OPEN.has(variant)) {
    const mine = side === 'white' ? white : black;
    const men = side === 'white' ? whiteMen : blackMen;
    return `Your material: ${mine} (${men} men; the opponent's is hidden).`;
  }
  const diff = white - black;
  return `Material: White ${white} · Black ${black}${diff ? ` (${diff > 0 ? 'White' : 'Black'} +${Math.abs(diff)})` : ' (level)'}`;
}

/** What the end opened to the player, before the record is final. */
function revealedText(variant: string, s: GameState): string {
  if (s.final || !HIDDEN.has(variant)) return '';
  const o = known(s.view, 'intrigue')?.opponent_setup;
  if (variant === 'intrigue' && o) {
    return `<p>The opponent's secret setup, now open: king hidden on <strong>${esc(o.king)}</strong>, informer pawn <strong>${esc(o.informer)}</strong>.</p>`;
  }
  return `<p class="muted">The whole board, both sides' men, shows here once the record is final.</p>`;
}

/** The games whose board the seat does not fully see while they are played. */
const HIDDEN = new Set<string>(VARIANTS.filter((v) => v.mode !== 'open').map((v) => v.id));

/** A side's setup as the final record opens it (gameState's `final.setups`: Intrigue's or 6x6's). */
type OpenedSetup = { king?: string; informer?: string; false_squares?: string[] } | null;

/**
 * The end screen's whole board, from the final record: the position at the end with both
 * sides' men (and, a click away, the position when play began: SIC's and 6x6's armies), the
 * opponent's now-public setup in words and on the board (Intrigue's hiding squares, 6x6's false
 * squares). Returns whether it drew.
 */
function showFinal(variant: string, s: GameState, box: HTMLElement): boolean {
  const f = s.final;
  if (!f || !HIDDEN.has(variant) || !(f.board ?? f.start)) return false;
  const me: Side = s.side ?? 'white';
  const them: Side = me === 'white' ? 'black' : 'white';
  const lines: string[] = [];
  for (const [side, who] of [[them, "The opponent's"], [me, 'Your']] as Array<[Side, string]>) {
    const w = setupWords(variant, f.setups?.[side]);
    if (w) lines.push(`<p data-setup-of="${side}">${esc(who)} secret setup, now public: <strong>${esc(w)}</strong>.</p>`);
  }
  if (variant === 'sic' || variant === 'kriegspiel') lines.push(`<p class="muted">Both armies, as the record shows them: White's men in white, Black's in black.</p>`);
  $('#final-setups', box).innerHTML = lines.join('');
  const marks = (board: string | null): DrawShape[] => {
    const out: DrawShape[] = [];
    for (const side of ['white', 'black'] as Side[]) {
      const st = f.setups?.[side] as OpenedSetup;
      if (!st) continue;
      if (variant === 'secretchess6') for (const sq of st.false_squares ?? []) out.push(mark(sq, 'blue'));
      // A king that never appeared hid there to the end.
      if (variant === 'intrigue' && st.king && !board?.split(' ')[0].includes(side === 'white' ? 'K' : 'k')) out.push(mark(st.king, 'green'));
    }
    return out;
  };
  // Shown before the board is made: chessground measures its element when it draws marks.
  box.hidden = false;
  const fb = new Board($('#final-board', box), { variant, side: me });
  const show = (which: 'end' | 'start') => {
    const b = which === 'end' ? f.board ?? f.start : f.start ?? f.board;
    fb.set(b ?? '', new Map(), { marks: marks(b) });
    $('#final-end', box).setAttribute('aria-selected', String(which === 'end'));
    $('#final-start', box).setAttribute('aria-selected', String(which === 'start'));
    $('#final-title', box).textContent = which === 'end' ? 'The whole board at the end' : 'The whole board when play began';
  };
  $('#final-end', box).addEventListener('click', () => show('end'));
  $('#final-start', box).addEventListener('click', () => show('start'));
  show('end');
  return true;
}

function lastMove(variant: string, s: GameState): [string, string] | undefined {
  const list = known(s.view, 'chess')?.moves ?? known(s.view, 'espionage')?.moves ?? (variant === 'intrigue' ? known(s.view, 'intrigue')?.moves : undefined);
  const m = list?.[list.length - 1];
  return m ? [m.from, m.to] : undefined;
}

/** Squares to mark: 6x6's red and false squares, SIC's check source, Intrigue's setup. */
function boardMarks(variant: string, view: SeatView | null): DrawShape[] {
  const marks: DrawShape[] = [];
  const six = known(view, 'secretchess6');
  if (variant === 'secretchess6') {
    for (const sq of six?.red ?? []) marks.push(mark(sq, 'red'));
    for (const sq of six?.false_squares ?? []) marks.push(mark(sq, 'blue'));
  }
  const sic = known(view, 'sic');
  if (variant === 'sic' && sic?.check) {
    // The man the report is about (the king, or the Decoy).
    const target = (sic.own ?? []).find((p) => p.role === (sic.check === 'king' ? 'king' : 'decoy'));
    if (target) marks.push(mark(target.square, 'red'));
  }
  if (variant === 'intrigue') {
    const ik = known(view, 'intrigue');
    const setup = ik?.setup;
    // The king's hiding square while it hides (no king of ours on the board yet).
    const ownKing = view?.board?.split(' ')[0]?.includes(view?.side === 'black' ? 'k' : 'K');
    if (setup?.king && !ownKing) marks.push(mark(setup.king, 'green'));
    // The informer where it stands now (it moves with its pawn; gone once taken or promoted).
    const informer = ik && 'informer_square' in ik ? ik.informer_square : setup?.informer;
    if (informer) marks.push(mark(informer, 'yellow'));
  }
  return marks;
}

function intrigueSetupForm(side: Side): string {
  const rank = side === 'white' ? '2' : '7';
  return `<form data-setup="intrigue" class="panel" aria-label="Intrigue setup"><p>Your secret setup: click a square on the board for your king to hide on, then one of your pawns to be the informer (or type them). Only a sealed commitment is sent now; it is opened at the end.</p>
<label>King's hiding square <input name="king" value="${side === 'white' ? 'e1' : 'e8'}" size="4" data-pick="square"></label>
<label>Informer pawn <input name="informer" value="d${rank}" size="4" data-pick="pawn"></label>
<label><input type="checkbox" name="queen"> queen starts on the king's square</label>
<button type="submit" class="primary">Commit setup</button></form>`;
}

const FORMATION_MEN: Array<[string, string]> = [['K', 'king'], ['Q', 'queen'], ['R', 'rook'], ['B', 'bishop'], ['N', 'knight'], ['1', 'empty']];

/** Six selects for a first rank, laid out as the board shows it to `side` (Black: f to a). */
function formationInputs(side: Side, initial: string, name: string): string {
  const files = ['a', 'b', 'c', 'd', 'e', 'f'];
  const order = side === 'white' ? files : [...files].reverse();
  return `<div class="formation" role="group" aria-label="${esc(name)}">${order.map((f) => {
    const at = initial[files.indexOf(f)];
    return `<label class="file">${f}<select data-file="${f}" aria-label="${esc(name)} ${f}">${FORMATION_MEN.map(([l, n]) => `<option value="${l}"${l === at ? ' selected' : ''}>${n}</option>`).join('')}</select></label>`;
  }).join('')}</div>`;
}

/** The formation string (files a to f) of a form's selects. */
function formationOf(form: HTMLFormElement, _side: Side): string {
  return ['a', 'b', 'c', 'd', 'e', 'f'].map((f) => (form.querySelector(`select[data-file="${f}"]`) as HTMLSelectElement | null)?.value ?? '1').join('');
}

function sixSetupForm(maxFalse: number, side: Side): string {
  const enemyRanks = side === 'white' ? '4 to 6' : '1 to 3';
  const rank = side === 'white' ? 1 : 6;
  return `<form data-setup="six" class="panel" aria-label="6x6 setup"><p>Your formation on rank ${rank}, shown as your board shows it: a king, queen, rook, bishop and knight once each, and one empty square. Clicking a square of your rank on the board picks it here. Then up to ${maxFalse} false threats: click squares of the enemy half (ranks ${enemyRanks}).</p>
${formationInputs(side, 'NBKQ1R', 'Formation')}
<label>False squares <input name="false_squares" placeholder="${side === 'white' ? 'b5 e6' : 'b2 e1'}" size="10"></label>
<p class="muted" id="formation-check" aria-live="polite"></p>
<button type="submit" class="primary">Commit setup</button></form>`;
}

function sixTieBreakForm(turns: number, side: Side): string {
  return `<form data-setup="tiebreak" class="panel" aria-label="6x6 tie-break"><p>Scores are level: guess the opponent's formation (its first rank, as your board shows it), and optionally its ${turns} turns in order (0000 for a pass).</p>
${formationInputs(side, 'RNBQ1K', 'Opponent formation')}
<label>Turns <input name="moves" placeholder="b6d4 0000" size="20"></label>
<button type="submit" class="primary">Send tie-break</button></form>`;
}

/**
 * Square picking for a setup form: Intrigue's king square then informer pawn; 6x6's
 * formation (a click on the own first rank cycles that file's man) and false squares (a click
 * in the enemy half toggles one). The board shows the picks as marks.
 */
function setupPicker(form: HTMLFormElement, side: Side, maxFalse: number, board: Board | null): (sq: string) => void {
  const marks = () => {
    const shapes: DrawShape[] = [];
    const k = (form.querySelector('input[name="king"]') as HTMLInputElement | null)?.value.trim().toLowerCase();
    const i = (form.querySelector('input[name="informer"]') as HTMLInputElement | null)?.value.trim().toLowerCase();
    if (k && /^[a-h][1-8]$/.test(k)) shapes.push(mark(k, 'green'));
    if (i && /^[a-h][1-8]$/.test(i)) shapes.push(mark(i, 'yellow'));
    const fs = (form.querySelector('input[name="false_squares"]') as HTMLInputElement | null)?.value.split(/[\s,]+/).filter(Boolean) ?? [];
    for (const f of fs) shapes.push(mark(f.toLowerCase(), 'blue'));
    board?.cg.setAutoShapes(shapes);
    const check = form.querySelector('#formation-check');
    if (check) {
      const f = formationOf(form, side);
      const ok = [...'KQRBN1'].every((l) => f.split(l).length === 2);
      check.textContent = ok ? `Formation a→f: ${f}` : `Each of K, Q, R, B, N and one empty square exactly once (now a→f: ${f}).`;
    }
  };
  form.addEventListener('input', marks);
  form.addEventListener('change', marks);
  setTimeout(marks, 0);
  let next: 'king' | 'informer' = 'king';
  form.addEventListener('focusin', (e) => {
    const n = (e.target as HTMLInputElement).name;
    if (n === 'king' || n === 'informer') next = n;
  });
  return (sq: string) => {
    const setup = form.dataset.setup;
    if (setup === 'intrigue') {
      const field = form.querySelector(`input[name="${next}"]`) as HTMLInputElement;
      field.value = sq;
      next = next === 'king' ? 'informer' : 'king';
    } else if (setup === 'six' || setup === 'tiebreak') {
      const own = side === 'white' ? '1' : '6';
      const guessRank = side === 'white' ? '6' : '1';
      const rank = sq.slice(1);
      if ((setup === 'six' && rank === own) || (setup === 'tiebreak' && rank === guessRank)) {
        const sel = form.querySelector(`select[data-file="${sq[0]}"]`) as HTMLSelectElement | null;
        if (sel) sel.selectedIndex = (sel.selectedIndex + 1) % sel.options.length;
      } else if (setup === 'six') {
        const input = form.querySelector('input[name="false_squares"]') as HTMLInputElement;
        const list = input.value.split(/[\s,]+/).filter(Boolean);
        const at = list.indexOf(sq);
        if (at >= 0) list.splice(at, 1);
        else if (list.length < maxFalse) list.push(sq);
        input.value = list.join(' ');
      }
    }
    marks();
  };
}

/** Intrigue's answer about a captured pawn (R-I3): whether it was the informer, and what it showed. */
function informerAnswer(i: Inspection, side: Side | null): string {
  const whose = i.owner === side ? 'Your' : "The opponent's";
  let text = `${whose} captured pawn: ${i.informer ? 'it was the informer' : 'not the informer'}`;
  if (i.appeared) {
    const r = i.appeared.removed;
    text += `; its king appeared on ${i.appeared.square}${r ? ` (the ${r.color} ${role(r.role)} there was removed)` : ''}`;
  }
  return text;
}

/** The server's verdict on the final record (its JSON, passed on by the agent). */
function verdictText(v: ServerJson): string {
  if (v?.status === 'valid') {
    const r = v.result ? ` ${esc(v.result.score ?? '')} (${esc(v.result.reason ?? '')})` : '';
    return `<p class="ok">The server's verifier: <strong>valid</strong>.${r}</p>`;
  }
  if (Array.isArray(v?.faults) && v.faults.length) {
    const sanction = v.sanction ? `<p>Sanction: ${esc(v.sanction.score ?? '')} (${esc(v.sanction.reason ?? '')})</p>` : '';
    return `<p class="warn">The server's verifier found faults:</p><ul>${v.faults.map((f: ServerJson) => `<li>${esc(f.explanation ?? f.kind)} <span class="muted">culprit</span> <span class="mono">${esc(shortKey(f.culprit))}</span><br><span class="muted">${esc(f.evidence ?? '')}</span></li>`).join('')}</ul>${sanction}`;
  }
  return `<details><summary>The server's verdict</summary><pre class="mono">${esc(JSON.stringify(v, null, 1))}</pre></details>`;
}

/** What the seat knows beyond the board, per game. */
function knowsPanel(variant: string, s: GameState): string {
  const kk = known(s.view, 'kriegspiel');
  const sk = known(s.view, 'sic');
  const ik = known(s.view, 'intrigue');
  const six = known(s.view, 'secretchess6');
  if (variant === 'kriegspiel' && kk) {
    const tried = (kk.tried ?? []).map((m) => moveUci(m));
    const turn = s.stage !== 'started' ? 'The game is over.' : kk.to_move === s.side ? 'Your turn.' : 'The opponent is to move.';
    return `<h2>The umpire</h2><p id="umpire-turn">${esc(turn)}</p>
${tried.length && s.stage === 'started' ? `<p class="warn">Illegal this turn: <span class="mono">${esc(tried.join(' '))}</span></p>` : ''}
<h3>Announcements</h3><ol class="log" id="announcements">${(kk.announcements ?? []).map((a) => `<li>${esc(announcement(a))}</li>`).join('') || '<li class="muted">None yet.</li>'}</ol>`;
  }
  if (variant === 'sic' && sk) {
    const check = sk.check === 'king'
      ? '<p class="warn"><strong>Check:</strong> your king is attacked.</p>'
      : sk.check === 'decoy'
        ? '<p class="warn"><strong>Decoy check:</strong> the enemy move attacks your Decoy (your king is not in check).</p>'
        : '';
    return `<h2>Tracking</h2><p>Move ${esc(sk.fullmove)}${sk.gave_check ? ' · <strong>you gave check</strong>' : ''}</p>${check}
<table aria-label="Your men"><thead><tr><th>id</th><th>man</th><th>on</th></tr></thead><tbody>${(sk.own ?? []).map((p) => `<tr><td class="mono">${esc(p.id)}</td><td>${esc(role(p.role))}</td><td class="mono">${esc(p.square)}${p.unmoved ? ' <span class="muted">unmoved</span>' : ''}</td></tr>`).join('')}</tbody></table>
<h3>Enemy men that moved</h3><p>${(sk.enemy_moved ?? []).map((p) => `<span class="badge" title="tracking id: the square it started on">${esc(p.id)} → ${esc(p.square)}</span>`).join(' ') || '<span class="muted">none</span>'}</p>
<p>Captured: ${esc((sk.captured ?? []).map(role).join(', ') || 'nothing')} · Lost: ${esc((sk.lost ?? []).map(role).join(', ') || 'nothing')}</p>`;
  }
  if (variant === 'intrigue' && ik) {
    const setup = ik.setup ? `king hides on ${ik.setup.king}, informer ${ik.setup.informer}${ik.setup.queen_on_king_square ? ', queen on the king\'s square' : ''}` : 'not chosen yet';
    return `<h2>Secrets</h2><p>Your setup: ${esc(setup)}</p>
<p>Opponent's queen on its king's square: ${esc(ik.opponent_queen_on_king_square == null ? 'not told yet' : ik.opponent_queen_on_king_square ? 'yes' : 'no')}</p>
<h3>Informer answers</h3><ol class="log">${(ik.inspections ?? []).map((i) => `<li>${esc(informerAnswer(i, s.side))}</li>`).join('') || '<li class="muted">None yet.</li>'}</ol>
${ik.opponent_setup ? `<p>The opponent's setup, opened: king ${esc(ik.opponent_setup.king)}, informer ${esc(ik.opponent_setup.informer)}</p>` : ''}`;
  }
  if (variant === 'secretchess6' && six) {
    const scores = six.scores ? `White ${six.scores.white ?? '?'} · Black ${six.scores.black ?? '?'}` : 'hidden';
    return `<h2>Your army</h2><p>Turn ${esc(six.turn)} · scores: ${esc(scores)} · Life Freezes left: ${esc(six.freezes_left)}${six.tie_break_turns != null ? ' · tie-break turns: ' + esc(six.tie_break_turns) : ''}</p>
${six.turn === 0 ? `<p>${six.opponent_ready ? 'The opponent has committed its setup.' : 'The opponent has not committed its setup yet.'}</p>` : ''}
<p>Formation: <span class="mono">${esc(six.formation ?? 'not chosen')}</span> · false squares: <span class="mono">${esc((six.false_squares ?? []).join(' ') || 'none')}</span> · red squares: <span class="mono">${esc((six.red ?? []).join(' ') || 'none')}</span></p>
<table aria-label="Your men and lifespans"><thead><tr><th>man</th><th>on</th><th>lifespan</th></tr></thead><tbody>${(six.pieces ?? []).map((p) => `<tr><td>${esc(role(p.role))}</td><td class="mono">${esc(p.square)}</td><td>${esc(p.lifespan ?? '—')}${p.frozen ? ' (frozen)' : ''}</td></tr>`).join('')}</tbody></table>`;
  }
  if (variant === 'espionage') return `<h2>Espionage</h2><p>7x7, every move public: Spy (S) and Cannon (C) on the board.</p>`;
  return `<h2>Chess</h2><p>Every move is public.</p>`;
}

theme();
void route().catch((e) => {
  app.innerHTML = `<main><h1>fogproof</h1><p class="warn">The agent is not answering: ${esc((e as Error).message)}</p></main>`;
});
