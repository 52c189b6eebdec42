# One entry point for people and CI.
#   make test   install missing Debian packages (when root), build everything, run every test
#   make test-fast   unit tests only (Java libraries without the @Tag("slow") ones, ctest -L unit): under a minute
#   make build  build everything, run nothing (lays out bin/ and lib/ as in MANA's manual)
#   make demo   build if needed, then checkpoint / kill / restart the bundled example
#   make bench-process | bench-coordinator | bench-agent | bench-attack | bench-inspector | bench-lint | bench-gdb | bench-mpi | bench-cluster   benchmarks (table, then one JSON line)
#   make screenshots   copy the screenshots the UI tests took (under target/) into docs/screenshots/

SHELL := /bin/bash
ROOT  := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# The reactor needs a JDK >= 21 (Tycho and current Eclipse bundles); these machines carry Temurin 25
# beside the default JDK 17. Libraries still target 17, so the default `java` runs the commands.
BUILD_JDK ?= $(firstword $(wildcard /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-2[1-9]-jdk-amd64 /usr/lib/jvm/java-2[1-9]-openjdk-amd64))
MVN := JAVA_HOME=$(BUILD_JDK) $(ROOT)/mvnw -B -ntp

# Debian packages the build and the tests use (real MPI, real gdb, real X server for the workbench).
# Recommended packages come too (as on the machines the suite was developed on: Open MPI's mpirun, for
# one, wants an ssh client present even for local runs). libgtk-3-0 and fonts: the Eclipse workbench.
# python3-mpi4py: an interpreter that reaches MPI through dlopen, checkpointed (tests/mpi).
# slurm-wlm, munge, iproute2: the multi-node tests run real Slurm on a cluster of namespaces (tests/cluster).
DEB_PACKAGES := build-essential cmake gdb openmpi-bin libopenmpi-dev mpich libmpich-dev \
                xvfb xauth libgtk-3-0 fonts-dejavu-core procps psmisc bsdutils util-linux \
                neovim python3 bc sqlite3 python3-mpi4py python3-pycparser gfortran libzstd-dev \
                slurm-wlm munge iproute2

.PHONY: all deps build test test-fast demo clean bench-process bench-coordinator bench-agent bench-attack bench-inspector bench-lint bench-gdb bench-mpi bench-cluster check-jdk screenshots test-apps

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "missing Debian packages (run as root or install them):$$missing" >&2; exit 1; fi; \
	fi

check-jdk:
	@if [ -z "$(BUILD_JDK)" ]; then echo "no JDK >= 21 found under /usr/lib/jvm (set BUILD_JDK=...)" >&2; exit 1; fi

build: deps check-jdk
	$(MVN) -DskipTests install

# The last lines say where the time went and name each failed test (CI keeps only the log's tail).
# core-native's ctest runs in the background from its install on (core-native/tests/ctest_bg.sh), beside
# the Java modules' tests; its output comes after the reactor's, and a failure of either fails the target
# (after both have finished, so that the report names every failed test).
CTEST_BG = $(ROOT)/core-native/tests/ctest_bg.sh
test: deps check-jdk
	rm -rf $(ROOT)/core-native/build/ctest-bg
	$(MVN) install -Dctest.mode=start || { $(CTEST_BG) wait $(ROOT)/core-native/build; python3 $(ROOT)/.ci/test_report.py --failed; exit 1; }
	$(CTEST_BG) wait $(ROOT)/core-native/build || { python3 $(ROOT)/.ci/test_report.py --failed; exit 1; }
	@python3 $(ROOT)/.ci/test_report.py

# Unit tests of the libraries and of the C runtime's codecs and scripts; builds first when nothing is built.
test-fast: check-jdk
	@[ -d $(ROOT)/core-native/build ] && [ -x $(ROOT)/bin/lower-half ] || $(MAKE) build
	$(MVN) -q -o -T 3 -pl test-support,control-plane,image-inspector,mpi-diagnostics,dap-server test -DexcludedGroups=slow
	cmake --build $(ROOT)/core-native/build -j2 > /dev/null
	cd $(ROOT)/core-native/build && ctest -L unit --output-on-failure

# Third-party MPI programs from Debian's packages, natively and checkpointed/killed/restarted under the
# runtime (core-native/tests/apps, docs/testing.md "Real MPI programs"); not part of `make test`.
# APPS="lammps meep" runs some of them.
APP_PACKAGES = $(shell cat $(ROOT)/core-native/tests/apps/progs/*.sh | sed -n 's/^APP_PACKAGES="*\([^"]*\)"*$$/\1/p' | tr ' ' '\n' | sort -u)
test-apps:
	@[ -x $(ROOT)/bin/lower-half-openmpi ] && [ -x $(ROOT)/bin/mana_coordinator ] || $(MAKE) build
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(APP_PACKAGES)"
	$(ROOT)/core-native/tests/apps/run_apps.sh $(APPS)

demo:
	@[ -x $(ROOT)/bin/mana_launch ] && [ -x $(ROOT)/bin/mana_coordinator ] || $(MAKE) build
	$(ROOT)/core-native/examples/demo.sh

# every benchmark through bench_run.py: its last line must be a JSON object (else the target fails)
BENCH_RUN := python3 $(ROOT)/core-native/bench/bench_run.py

bench-mpi:
	@[ -x $(ROOT)/bin/lower-half-openmpi ] || $(MAKE) build
	$(BENCH_RUN) $(ROOT)/core-native/bench/bench_mpi.sh

# on the namespace cluster of the multi-node tests (real Slurm daemons): needs root, else it says so and fails
bench-cluster:
	@[ -x $(ROOT)/bin/lower-half-openmpi ] && [ -x $(ROOT)/bin/mana_coord_probe ] || $(MAKE) build
	$(BENCH_RUN) $(ROOT)/core-native/bench/bench_cluster.sh

bench-process:
	@[ -x $(ROOT)/bin/mana_launch ] || $(MAKE) build
	$(BENCH_RUN) $(ROOT)/core-native/bench/bench_process.sh

bench-coordinator:
	@[ -x $(ROOT)/bin/mana_coordinator ] || $(MAKE) build
	$(BENCH_RUN) $(ROOT)/control-plane/bench/bench_coordinator.sh

# Node agents: barrier of real rank processes with and without agents, then the simulated 4,096 ranks
# through 64 agents beside groups and per-rank connections (docs/benchmarks.md, "Through node agents").
bench-agent:
	@[ -x $(ROOT)/bin/mana_node_agent ] && [ -x $(ROOT)/bin/mana_simrank ] || $(MAKE) build
	$(BENCH_RUN) $(ROOT)/core-native/bench/bench_agent.sh
	$(BENCH_RUN) $(ROOT)/core-native/bench/bench_agent.sh --simulated

bench-attack:
	@[ -x $(ROOT)/bin/mana_coordinator ] || $(MAKE) build
	$(BENCH_RUN) $(ROOT)/control-plane/bench/bench_attack.sh

bench-inspector:
	@[ -x $(ROOT)/bin/mana_inspect ] && ls $(ROOT)/image-testkit/target/image-testkit-*.jar >/dev/null 2>&1 || $(MAKE) build
	$(BENCH_RUN) $(ROOT)/image-inspector/bench/bench_inspector.sh

# The UI tests write their screenshots under target/ (never into docs/ during make test).
SHOTS := $(ROOT)/plugins/dev.mana.eclipse.ui.tests/target/screenshots
screenshots:
	@ls $(SHOTS)/*.png >/dev/null 2>&1 || { echo "no screenshots in $(SHOTS): run make test first (the UI tests take them)" >&2; exit 1; }
	cp $(SHOTS)/*.png $(ROOT)/docs/screenshots/
	@echo "copied $$(ls $(SHOTS)/*.png | wc -l) screenshots into docs/screenshots/"

bench-lint:
	@[ -x $(ROOT)/bin/mana_lint ] || $(MAKE) build
	$(BENCH_RUN) $(ROOT)/mpi-diagnostics/bench/bench_lint.sh

bench-gdb:
	@[ -x $(ROOT)/bin/mana_gdb ] || $(MAKE) build
	$(BENCH_RUN) $(ROOT)/gdb-integration/bench/bench_gdb.sh

clean:
	$(MVN) -q clean || true
	rm -rf $(ROOT)/bin $(ROOT)/lib $(ROOT)/core-native/build
