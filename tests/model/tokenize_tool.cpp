// Test helper for tokenizer_test.py: reads vocab.json and merges.txt, then one JSON string a line
// on stdin, and prints each one's GPT-2 token ids as a JSON list a line (or {"error": …}).
#include "engine/model/bpe_tokenizer.hpp"
#include "engine/attention/matrix.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: attnlab_tokenize VOCAB_JSON MERGES_TXT < strings.jsonl\n";
    return 2;
  }
  try {
    const auto tok = attnlab::model::BpeTokenizer::load(argv[1], argv[2]);
    std::string line;
    while (std::getline(std::cin, line)) {
      const std::string text = nlohmann::json::parse(line).get<std::string>();
      try {
        std::cout << nlohmann::json(tok.encode(text)).dump() << "\n";
      } catch (const attnlab::InputError& e) {
        std::cout << nlohmann::json{{"error", e.what()}}.dump() << "\n";
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "attnlab_tokenize: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
