# mqtx: the user's entry point. Every target installs missing build dependencies first.
BUILD   ?= build
MESON_OPTS ?=
ifeq ($(CI),true)
MESON_OPTS += -Dwerror=true
endif

.PHONY: all deps run check bench sanitize tsan install clean

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

bench: $(BUILD)-bench/build.ninja
	ninja -C $(BUILD)-bench
	$(BUILD)-bench/bench/xmit
	$(BUILD)-bench/bench/qdisc
	$(BUILD)-bench/bench/wme
	$(BUILD)-bench/bench/backends

$(BUILD)-bench/build.ninja: | deps
	meson setup $(BUILD)-bench -Dbuildtype=release -Dtests=false $(MESON_OPTS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer.
sanitize: $(BUILD)-asan/build.ninja
	ninja -C $(BUILD)-asan
	@scripts/bootstrap --check-extra
	@UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$(CURDIR)/scripts/ubsan.supp scripts/run-tests $(BUILD)-asan \
		--timeout-multiplier 3

$(BUILD)-asan/build.ninja: | deps
	meson setup $(BUILD)-asan -Db_sanitize=address,undefined -Db_lundef=false $(MESON_OPTS)

# The concurrency tests under ThreadSanitizer.
tsan: $(BUILD)-tsan/build.ninja
	ninja -C $(BUILD)-tsan
	@TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 scripts/run-tests $(BUILD)-tsan \
		--suite concurrency --timeout-multiplier 5

$(BUILD)-tsan/build.ninja: | deps
	meson setup $(BUILD)-tsan -Db_sanitize=thread -Db_lundef=false $(MESON_OPTS)

install: all
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-bench
