# mqtx: the user's entry point. Every target installs missing build dependencies first.
BUILD   ?= build
MESON_OPTS ?=
ifeq ($(CI),true)
MESON_OPTS += -Dwerror=true
endif

.PHONY: all deps run check bench sanitize tsan clang fuzz soak format check-format install uninstall clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@scripts/bootstrap

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) $(MESON_OPTS)

run: all
	scripts/main-job $(BUILD)

check: all
	@scripts/bootstrap --check-extra
	@scripts/run-tests $(BUILD)

# Benchmarks: a release tree of their own (-Dbench=true; DPDK is linked there only), every
# program run in turn, then bench/compare: targets and SVG plots in $(BUILD)-bench/bench/results.
# MQTX_BENCH_QUICK=1 make bench: a smoke run.
bench: $(BUILD)-bench/build.ninja
	@scripts/bootstrap --bench
	meson configure $(BUILD)-bench -Dbench=true
	ninja -C $(BUILD)-bench
	bench/run $(BUILD)-bench

$(BUILD)-bench/build.ninja: | deps
	@scripts/bootstrap --bench
	meson setup $(BUILD)-bench -Dbuildtype=release -Dtests=false -Dbench=true $(MESON_OPTS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer.
sanitize: $(BUILD)-asan/build.ninja
	ninja -C $(BUILD)-asan
	@scripts/bootstrap --check-extra
	@UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$(CURDIR)/scripts/ubsan.supp \
		LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp SLOWDOWN=3 \
		scripts/run-tests $(BUILD)-asan

$(BUILD)-asan/build.ninja: | deps
	meson setup $(BUILD)-asan -Db_sanitize=address,undefined -Db_lundef=false $(MESON_OPTS)

# The concurrency tests under ThreadSanitizer.
tsan: $(BUILD)-tsan/build.ninja
	ninja -C $(BUILD)-tsan
	@TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 SLOWDOWN=5 \
		scripts/run-tests $(BUILD)-tsan --suite concurrency

$(BUILD)-tsan/build.ninja: | deps
	meson setup $(BUILD)-tsan -Db_sanitize=thread -Db_lundef=false $(MESON_OPTS)

# The library, tools and tests built with clang (warnings are errors) and the suite run.
clang: $(BUILD)-clang/build.ninja
	ninja -C $(BUILD)-clang
	@scripts/run-tests $(BUILD)-clang

$(BUILD)-clang/build.ninja: | deps
	@scripts/bootstrap --clang
	CC=clang meson setup $(BUILD)-clang -Dwerror=true $(MESON_OPTS)

# The soak of tests/test_stress.c alone: DURATION seconds in phases of a second, SOAK_THREADS
# senders on SOAK_QUEUES queues, configuration changed under traffic; the books are checked at
# the end of every phase. make check runs it for 3 s. The fixed stress cases of the same test
# take MQTX_STRESS_PACKETS per sender (50000).
DURATION ?= 60
SOAK_THREADS ?= 8
SOAK_QUEUES ?= 8
soak: all
	MQTX_SOAK_ONLY=1 MQTX_SOAK_SECONDS=$(DURATION) MQTX_SOAK_THREADS=$(SOAK_THREADS) \
		MQTX_SOAK_QUEUES=$(SOAK_QUEUES) $(BUILD)/tests/test_stress

# The fuzz targets (fuzz/) built with clang's libFuzzer, ASan and UBSan, each run FUZZ_SECONDS
# from its seeds in fuzz/corpus/; one summary line per target, a crash fails the run.
FUZZ_SECONDS ?= 60
fuzz: $(BUILD)-fuzz/build.ninja
	ninja -C $(BUILD)-fuzz
	@scripts/fuzz $(BUILD)-fuzz $(FUZZ_SECONDS)

$(BUILD)-fuzz/build.ninja: | deps
	@scripts/bootstrap --fuzz
	CC=clang meson setup $(BUILD)-fuzz -Dfuzz=true -Dtests=false -Db_sanitize=address,undefined \
		-Db_lundef=false $(MESON_OPTS)

# Every C file as .clang-format says; check-format changes nothing and fails on a difference.
format:
	@scripts/bootstrap --format
	@scripts/check-format --fix

check-format:
	@scripts/bootstrap --format
	@scripts/check-format

# make install [PREFIX=/usr/local] [DESTDIR=stage]: the build tree takes the prefix (the
# pkg-config file names it), then says where everything went. make uninstall removes what the
# last install of this tree put in place.
PREFIX ?= /usr/local
install: all
	@meson configure $(BUILD) -Dprefix=$(abspath $(PREFIX)) >/dev/null
	@ninja -C $(BUILD) >/dev/null
	@meson install -C $(BUILD) --no-rebuild --quiet
	@scripts/install-summary $(BUILD)

uninstall:
	@scripts/install-summary --uninstall $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-bench $(BUILD)-clang $(BUILD)-fuzz
