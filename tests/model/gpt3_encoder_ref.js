// The reference for tokenizer_test.py: the npm package gpt-3-encoder (pinned, installed by the
// test), whose encode() is a port of OpenAI's GPT-2 encoder. Reads a JSON list of strings from the
// file named by argv[2] and prints a JSON list of their token ids.
const path = require('path');
const fs = require('fs');
const { encode } = require(path.join(process.argv[2], 'node_modules', 'gpt-3-encoder'));
const strings = JSON.parse(fs.readFileSync(process.argv[3], 'utf-8'));
process.stdout.write(JSON.stringify(strings.map((s) => encode(s))));
