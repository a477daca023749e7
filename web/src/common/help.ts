// How each game is played, for players: short, in plain words, written for fogproof from the
// games' source texts (never the project's design ids). Shown beside the board and in the lobby.

export interface Help {
  /** One line: what makes the game what it is. */
  summary: string;
  /** The rules a newcomer needs, a sentence each. */
  rules: string[];
  /** How to make each kind of move on this page. */
  howTo: string[];
}

const ORTHODOX = 'Men move as in ordinary chess unless said otherwise.';
const TYPE = 'Click or drag a man to move it, or type the move: e2e4, e4, Nf3, exd5, O-O (any case where it reads one way only).';

export const HELP: Record<string, Help> = {
  chess: {
    summary: 'Ordinary chess: both players see the whole board.',
    rules: ['The usual rules: checkmate wins; stalemate, threefold repetition, fifty moves without a capture or pawn move, and too little material to mate are draws.'],
    howTo: [TYPE, 'While the opponent thinks you may premove: make your next move on the board and it is played the moment it becomes legal (click an empty square to cancel).'],
  },
  kriegspiel: {
    summary: "You see only your own men. A neutral umpire sees both boards and tells you what you may know.",
    rules: [
      ORTHODOX,
      'You try moves. The umpire answers "illegal" to you alone and you try again; your opponent never hears of your illegal tries.',
      'After a legal move both players hear: a capture and its square (pawn or piece, not which piece), any check and its direction (rank, file, long or short diagonal, knight), and how many pawn captures the side to move has ("pawn tries").',
      'Promotions are not announced. Checkmate, stalemate and the automatic draws end the game as in chess.',
    ],
    howTo: [TYPE, 'Every square you could move to is offered: the umpire decides. Illegal tries are listed in red.'],
  },
  sic: {
    summary: "Secret Intelligence Chess: a random army you cannot see on the other side, with fairy pieces, spies and a decoy king.",
    rules: [
      "Each side gets king, rooks, bishops, knights and pawns plus a random pair (queen and centaur, marshall and dragon horse, archbishop and dragon king, or decoy and spy), placed at random on its first three ranks.",
      "You see your own men, where every enemy move went from and to (not the man), which enemy men were captured, and every enemy man that has moved (its kind stays hidden).",
      'Marshall: rook + knight. Archbishop: bishop + knight. Centaur: knight + king step. Dragon horse: bishop + one orthogonal step. Dragon king: rook + one diagonal step.',
      'Pawns may always step two squares when both are free. The spy moves as a knight, bishop or rook but may not step where an enemy man could take it. The decoy moves as a king or knight and looks like a king to your opponent.',
      'You are told "check" when your king is attacked, or that your decoy is; the player who gave it is told only "check". Two unmoved men of different kinds may swap squares.',
      'Your legal moves are always listed, so there are no illegal tries.',
    ],
    howTo: [TYPE],
  },
  intrigue: {
    summary: 'Ordinary chess, except that each king hides on a secret square until its informer pawn is taken.',
    rules: [
      'Before play each player secretly chooses any square for the king to hide on, and one of its pawns as the informer. The queen may start on the king\'s square (everyone sees that choice).',
      'Every move is public. When a pawn is taken, its owner says whether it was the informer. If so, the king appears on its hiding square at once, removing whatever stood there.',
      'A hidden king cannot be attacked or mated, but its side can be stalemated, resign or lose on time. A king that appears on the enemy king\'s square takes it and wins.',
      'A king that appears in line with an unmoved rook may castle with it from any distance.',
    ],
    howTo: ['Set up by clicking squares: first the king\'s hiding square, then the informer pawn. Then play as in chess.', TYPE],
  },
  secretchess6: {
    summary: '6x6 Secret Chess: no captures; place threats on the enemy\'s men and score points before your pieces age away.',
    rules: [
      'Each player secretly arranges king, queen, rook, bishop and knight on its first rank with one square left empty, and marks up to two squares of the enemy\'s three ranks as false threats.',
      "You never see the enemy's half of the board. At the start of your turn you see which of your own squares are threatened, with the false squares mixed in.",
      'Men may not enter the enemy half or land on an occupied square; the king never moves. A moved man ages: queen 1 turn, bishop 2, rook 3, knight 4, then it is gone. A knight may be powered up to leap (3,1).',
      'After each turn both score a point for each of their men attacking an enemy man (two for the king). When only kings are left, the higher score wins; a tie is decided by guessing the opponent\'s formation, then its moves.',
    ],
    howTo: ['Set up by clicking squares of your first rank in turn, or type the formation left to right as you see it. Click enemy squares to mark false threats.', 'End turn and Life Freeze are buttons when offered.'],
  },
  espionage: {
    summary: 'Espionage Chess: chess on a 7x7 board with a spy and two cannons each; everything is public.',
    rules: [
      'The spy moves and takes like a queen, but may be taken only on the move right after it has taken something.',
      'The cannon moves like a rook up to four squares and takes by jumping over exactly one man onto an enemy man at most four squares away.',
      'No castling, no pawn double step, no en passant. Pawns promote on the sixth rank (White) or the second (Black).',
    ],
    howTo: [TYPE],
  },
};

/** The help of a game as HTML (the texts above are constants: no peer input). */
export function helpHtml(variant: string): string {
  const h = HELP[variant];
  if (!h) return '';
  return `<p>${h.summary}</p><ul>${h.rules.map((r) => `<li>${r}</li>`).join('')}</ul><h3>On this page</h3><ul>${h.howTo.map((r) => `<li>${r}</li>`).join('')}</ul>`;
}
