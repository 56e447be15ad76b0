// The file attnlab_test_pch compiles, so that CMake builds the tests' precompiled header
// (tests/CMakeLists.txt); it holds no code.
