# Every target installs what it needs: a fresh clone runs `make test` or `make demo` with nothing done by hand.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test
NPM ?= npm
JEST_ARGS ?=
SIM_ARGS ?=
BENCH_ARGS ?=
SOAK_ARGS ?=
MUTATE_FOLDERS ?= api wait resources local-engine

.PHONY: install build pack typecheck test sim bench soak demo docs clean mutate

# `npm ci` only when the lock file changed since the last install (the stamp lives inside node_modules,
# so `git clean -xfd` removes both together).
node_modules/.install-stamp: package-lock.json package.json
	$(NPM) ci --no-audit --no-fund
	touch $@

install: node_modules/.install-stamp

build: install
	rm -rf dist
	npx tsc -p tsconfig.build.json

# The package as users get it: examples and the dynamic-provider tests install this tarball, because
# Pulumi's closure serializer treats code under node_modules differently from a linked checkout.
pack: build
	rm -rf .pack && mkdir -p .pack
	$(NPM) pack --silent --pack-destination .pack >/dev/null
	mv .pack/pulumi-vmhost-*.tgz .pack/pulumi-vmhost.tgz

typecheck: install
	npx tsc -p tsconfig.json --noEmit

# The whole suite. Results also go to reports/jest.json, which .ci/run turns into "N passed, N failed".
# The type check and the build+pack are two single-threaded tsc runs that need nothing from each other: they
# run side by side (-j2; about 13 s instead of 26 s on two cores), then jest.
test: install
	$(MAKE) --no-print-directory -j2 typecheck pack
	mkdir -p reports
	npx jest --ci --json --outputFile=reports/jest.json $(JEST_ARGS)

# Regenerates schema.json from the resources' zod schemas (tools/schema) and docs/ from schema.json
# (tools/docs). CI checks both are committed as generated (tests/schema.test.ts, tests/docs.test.ts).
docs: build
	node dist/tools/schema/generate.js schema.json
	node dist/tools/docs/generate.js schema.json docs

# The build's output goes to stderr so the simulator's `listening on <url>` is the first stdout line.
sim:
	@$(MAKE) --no-print-directory -s build >&2
	@node bin/vmhost-sim.js $(SIM_ARGS)

# The main job, and the README's first command: examples/basic-vm through preview, up, drift made in the
# simulator, refresh, up, destroy, with the local engine (tools/demo.ts). Exits 0 when every step did its job.
demo: pack
	node dist/tools/demo.js

# The performance report (tools/bench): settle detection of every operation kind in fresh processes beside fixed
# pollers, and fleets of 1/10/50 VMs through the local engine at 10 requests/s; each goal beside its figure.
# About 15 minutes (BENCH_ARGS=--quick: about 4). Measured here, never asserted in tests.
bench: pack
	node dist/tools/bench/index.js $(BENCH_ARGS)

# The fault soak (tools/soak): 600 random lifecycles of every resource against the simulator with injected
# faults and interrupted runs, driven through the built provider as the Pulumi engine drives it. Prints
# `soak: N lifecycles, K faults, X orphans, Y duplicates, Z leaks, ...` and fails on any. Not part of `make test`
# (tests/soak.test.ts runs a short seeded one there).
soak: build
	node dist/tools/soak/index.js $(SOAK_ARGS)

clean:
	rm -rf dist .pack reports

# Mutation testing (issue 13, StrykerJS; stryker.config.mjs): tools/mutate/run.mjs runs Stryker once per piece of
# each folder (provider/api, provider/wait, provider/resources, tools/local-engine), each piece with only the jest
# suites that exercise it and at nice 19, then the score per folder (tools/mutate/score.mjs; equivalent mutants are
# listed in tools/mutate/equivalent.txt). Incremental: each piece keeps reports/stryker-incremental-<folder>-<piece>.json,
# so a second run re-tests only what changed, and a finished piece is kept when a later one is interrupted. Not part
# of `make test`. MUTATE_FOLDERS="wait" runs one folder, MUTATE_PIECES="common" some pieces; for a quick run on some
# files: MUTATE_FOLDER=wait MUTATE_FILES=provider/wait/poll.ts npx stryker run stryker.config.mjs.
mutate: install
	MUTATE_FOLDERS="$(MUTATE_FOLDERS)" node tools/mutate/run.mjs
	node tools/mutate/score.mjs
