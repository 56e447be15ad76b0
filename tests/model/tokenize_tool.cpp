// Test helper for tokenizer_test.py and tokenizer_json_test.py: reads a tokenizer, then one JSON
// string a line on stdin, and prints a line for each.
//   attnlab_tokenize VOCAB_JSON MERGES_TXT   GPT-2's files: the ids as a JSON list (or {"error": …})
//   attnlab_tokenize FOLDER                  tokenizer.json (+ tokenizer_config.json):
//                                            {"ids": […], "texts": [each token's text]} (or {"error": …})
#include "engine/attention/matrix.hpp"
#include "engine/model/bpe_tokenizer.hpp"
#include "engine/model/tokenizer/tokenizer_json.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::cerr << "usage: attnlab_tokenize VOCAB_JSON MERGES_TXT < strings.jsonl\n"
                 "       attnlab_tokenize FOLDER < strings.jsonl\n";
    return 2;
  }
  try {
    std::unique_ptr<attnlab::model::Tokenizer> tok;
    if (argc == 3) tok = std::make_unique<attnlab::model::BpeTokenizer>(attnlab::model::BpeTokenizer::load(argv[1], argv[2]));
    else tok = attnlab::model::load_tokenizer_json(argv[1]);
    std::string line;
    while (std::getline(std::cin, line)) {
      const std::string text = nlohmann::json::parse(line).get<std::string>();
      try {
        const std::vector<int> ids = tok->encode(text);
        if (argc == 3) {
          std::cout << nlohmann::json(ids).dump() << "\n";
          continue;
        }
        nlohmann::json texts = nlohmann::json::array();
        for (int id : ids) texts.push_back(tok->token_text(id));
        std::cout << nlohmann::json{{"ids", ids}, {"texts", texts}}.dump() << "\n";
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
