# Read by CMake right after llama.cpp's own project() call when scripts/setup.sh builds the
# llama-cpp-python fallback (CMAKE_ARGS="... -DCMAKE_PROJECT_llama.cpp_INCLUDE=<this file>").
# llama-cpp-python forces llama.cpp's `common` utility library on, but its Python bindings and
# server never use it (only the multimodal tools do, and LLAVA_BUILD=OFF skips those):
# switching it off here, after that force, roughly halves the compile (543 s -> 291 s on 2 cores).
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp: build the common utils library (unused by llama-cpp-python)" FORCE)
