// The words files and the command line use for an enum's values: one table per enum, in the
// enum's order, giving a value's name, a name's value, and the list for an error sentence.
#pragma once

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
