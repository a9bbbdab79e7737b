# Convenience front end for the CMake build. `make demo` and `make test` are the README's
# Quick start; both install missing Debian packages first.
BUILD ?= build
SAN_BUILD ?= build-sanitize
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build demo test sanitize install package clean

all: build

deps:
	@.ci/deps

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The demo suite has one case that fails on purpose, so its run exits 1; any other code fails.
demo: build
	@$(BUILD)/forge script scripts/demo.lua; rc=$$?; \
	if [ $$rc -eq 1 ]; then echo "(the demo's failing case is deliberate: see scripts/demo.lua)"; \
	elif [ $$rc -ne 0 ]; then exit $$rc; fi

# A suite whose external data is missing is skipped; say which and why after the summary.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@grep -h '^SKIPPED: ' $(BUILD)/Testing/Temporary/LastTest.log 2>/dev/null || true

sanitize: deps
	@cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DFORGE_SANITIZE=ON >/dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS)

install: build
	cmake --install $(BUILD)

# A Debian package in $(BUILD)/ (forge_VERSION_ARCH.deb); see docs/install.md.
package: build
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
