# The CMake options of scripts/setup's build folders, declared once (sourced by scripts/setup and
# bench/build_time/run.sh, whose figures are of the same builds the tests use).
#   release_flags  build/release
#   asan_flags     build/asan: the parts that do not link libtorch under AddressSanitizer + UBSan,
#                  built with clang (scripts/deps/reliability.txt): its sanitizer build of this code
#                  takes about half the time of GCC 12's (docs/BENCHMARKS.md, "Build time")
#   tsan_flags     build/tsan: our threads under GCC's ThreadSanitizer, the trainer's (data workers,
#                  the batch thread, ranks under mpirun, libtorch kept) and lanectl's (the dashboard,
#                  list -w over Kubernetes); only the tests labelled thread-sanitizer are built. No
#                  tcmalloc: ThreadSanitizer brings its own allocator. LANE_TRAIN_ONLY=OFF is named:
#                  a build/tsan of the trainer alone has it cached ON.
#   fuzz_flags     build/fuzz: the libFuzzer targets (clang, ASan + UBSan), no tests
release_flags=(-DCMAKE_BUILD_TYPE=Release)
asan_flags=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
            -DLANE_SANITIZE=address,undefined -DLANE_BUILD_BENCH=OFF)
tsan_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLANE_SANITIZE=thread -DLANE_TRAIN_ONLY=OFF
            -DLANE_BUILD_BENCH=OFF -DLANE_TCMALLOC=OFF)
fuzz_flags=("${asan_flags[@]}" -DLANE_FUZZ=ON -DLANE_BUILD_TESTS=OFF)
