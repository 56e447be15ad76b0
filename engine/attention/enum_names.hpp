// The words files and the command line use for an enum's values: one table per enum, in the
// enum's order, giving a value's name, a name's value, and the list for an error sentence.
#pragma once

#include "engine/attention/matrix.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace attnlab {

template <class Enum, std::size_t N>
class EnumNames {
public:
  constexpr explicit EnumNames(std::array<std::string_view, N> names) : names_(names) {}

  std::string_view operator[](Enum value) const { return names_.at(static_cast<std::size_t>(value)); }

  std::optional<Enum> find(std::string_view name) const {
    for (std::size_t i = 0; i < N; ++i) {
      if (names_[i] == name) return static_cast<Enum>(i);
    }
    return std::nullopt;
  }

  // The value named `name`; InputError "WHERE: unknown WHAT 'NAME' (expected a, b or c)" otherwise.
  Enum parse(std::string_view name, std::string_view where, std::string_view what) const {
    if (const std::optional<Enum> value = find(name)) return *value;
    throw InputError(std::string(where) + ": unknown " + std::string(what) + " '" + std::string(name) + "' (expected " +
                     alternatives() + ")");
  }

  // "none, causal or window".
  std::string alternatives() const {
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
      if (i > 0) out += i + 1 == N ? " or " : ", ";
      out += names_[i];
    }
    return out;
  }

private:
  std::array<std::string_view, N> names_;
};

}  // namespace attnlab
