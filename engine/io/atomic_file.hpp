// Safe file writing: a temporary file in the target folder, flushed, then renamed over the target,
// so a failure never leaves a half-written file behind.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace attnlab {

// Writes `bytes` to `path` atomically. Throws InputError with a sentence naming the path.
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

// Calls `write` with a stream onto a temporary file next to `path`, then renames it into place.
// When `write` throws, the temporary file is removed and the exception propagates.
void write_stream_atomic(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

// Reads a whole file; throws InputError for a missing file, a directory or an unreadable file.
std::string read_file(const std::filesystem::path& path);

}  // namespace attnlab
