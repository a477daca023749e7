// Builds web/dist from web/src: the agent's and the host's pages (esbuild bundles, minified,
// no sourcemaps), one stylesheet, the piece images. Deterministic: the same sources give the
// same bytes (no timestamps, no absolute paths), so CI checks the committed dist against them.
import { build } from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync, rmSync, readdirSync, copyFileSync } from 'node:fs';

const dist = 'dist';
rmSync(dist, { recursive: true, force: true });
mkdirSync(`${dist}/pieces`, { recursive: true });

for (const page of ['agent', 'host']) {
  await build({
    entryPoints: [`src/${page}/main.ts`],
    outfile: `${dist}/${page}.js`,
    bundle: true,
    minify: true,
    sourcemap: false,
    format: 'esm',
    target: 'es2020',
    legalComments: 'eof',
    charset: 'utf8',
    logLevel: 'warning',
  });
  const title = page === 'agent' ? 'fogproof: your agent' : 'fogproof';
  writeFileSync(
    `${dist}/${page}.html`,
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="/assets/pieces/wn.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/style.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/assets/${page}.js"></script>
</body>
</html>
`,
  );
}

// The pieces: every image, and a rule per piece (chessgroundx roles are '<letter>-piece').
const pieces = readdirSync('src/common/pieces').filter((f) => f.endsWith('.svg')).sort();
let pieceCss = '/* Piece images: see web/README.md for their authors and licences. */\n';
for (const f of pieces) {
  copyFileSync(`src/common/pieces/${f}`, `${dist}/pieces/${f}`);
  const name = f.slice(0, -4);
  if (name === 'fog') {
    pieceCss += `.cg-wrap piece._-piece{background-image:url('/assets/pieces/fog.svg')}\n`;
  } else {
    const color = name[0] === 'w' ? 'white' : 'black';
    pieceCss += `.cg-wrap piece.${name.slice(1)}-piece.${color}{background-image:url('/assets/pieces/${f}')}\n`;
  }
}
const css = [
  readFileSync('node_modules/chessgroundx/assets/chessground.base.css', 'utf8'),
  readFileSync('src/common/style.css', 'utf8'),
  pieceCss,
].join('\n');
writeFileSync(`${dist}/style.css`, css);
console.log(`built ${dist}: agent, host, style.css, ${pieces.length} pieces`);
