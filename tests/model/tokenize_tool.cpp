// Test helper for tokenizer_test.py and tokenizer_json_test.py (and bench/tokenizer_bench.py): reads
// a tokenizer, then one JSON string a line on stdin, and prints a line for each.
//   attnlab_tokenize VOCAB_JSON MERGES_TXT   GPT-2's files: the ids as a JSON list (or {"error": …})
//   attnlab_tokenize [--timing] FOLDER       tokenizer.json (+ tokenizer_config.json):
//                                            {"ids": […], "texts": [each token's text]} (or {"error": …});
//                                            --timing adds "seconds" (the encode alone) and prints the
//                                            seconds loading took on stderr
//   attnlab_tokenize [--timing] FILE.gguf    a GGUF file's tokenizer (engine/model/gguf_tokenizer.hpp),
//                                            printed as for a folder
#include "engine/attention/matrix.hpp"
#include "engine/model/bpe_tokenizer.hpp"
#include "engine/model/gguf_tokenizer.hpp"
#include "engine/model/tokenizer/tokenizer_json.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const bool timing = argc == 3 && std::string(argv[1]) == "--timing";
  if (argc != 2 && argc != 3) {
    std::cerr << "usage: attnlab_tokenize VOCAB_JSON MERGES_TXT < strings.jsonl\n"
                 "       attnlab_tokenize [--timing] FOLDER < strings.jsonl\n";
    return 2;
  }
  const bool gpt2 = argc == 3 && !timing;
  try {
    std::unique_ptr<attnlab::model::Tokenizer> tok;
    const auto load_start = std::chrono::steady_clock::now();
    if (gpt2) tok = std::make_unique<attnlab::model::BpeTokenizer>(attnlab::model::BpeTokenizer::load(argv[1], argv[2]));
    else if (std::string(argv[argc - 1]).ends_with(".gguf")) {
      const attnlab::model::GgufFile file(argv[argc - 1]);
      auto loaded = attnlab::model::gguf_tokenizer(file.metadata());
      if (!loaded.tokenizer) throw attnlab::InputError(loaded.missing);
      tok = std::move(loaded.tokenizer);
    } else {
      tok = attnlab::model::load_tokenizer_json(argv[argc - 1]);
    }
    if (timing) std::cerr << "loaded in " << seconds_since(load_start) << " s\n";
    std::string line;
    while (std::getline(std::cin, line)) {
      const std::string text = nlohmann::json::parse(line).get<std::string>();
      try {
        const auto start = std::chrono::steady_clock::now();
        const std::vector<int> ids = tok->encode(text);
        const double seconds = seconds_since(start);
        if (gpt2) {
          std::cout << nlohmann::json(ids).dump() << "\n";
          continue;
        }
        nlohmann::json texts = nlohmann::json::array();
        for (int id : ids) texts.push_back(tok->token_text(id));
        nlohmann::json out{{"ids", ids}, {"texts", texts}};
        if (timing) out["seconds"] = seconds;
        std::cout << out.dump() << "\n";
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
