# hoop Sidecar. `make run` brings up a working setup on this machine; `make test` runs every test.
GO ?= go

.PHONY: run test fuzz soak deps build image clean stop-engine help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## build bin/sidecar and bin/controlplane
	$(GO) build -o bin/sidecar ./cmd/sidecar
	$(GO) build -o bin/controlplane ./cmd/controlplane

image: ## build the container image here without a registry (Dockerfile.local; docs/container.md) and print its name
	./scripts/image.sh

run: ## start the reference Control Plane, an example upstream and a Sidecar; print what to try (README: Try it)
	./scripts/deps.sh run
	./scripts/run.sh

deps: ## install what the tests need (idempotent; Go proxy, Debian and npm only)
	./scripts/deps.sh

test: deps ## vet and run every test (unit, race, conformance with real clients and servers)
	./scripts/test.sh

fuzz: ## run every go fuzz target, one per core at a time (FUZZLANES), FUZZTIME each (default 10m: make fuzz FUZZTIME=1h), then the SQL differential tests for HOOP_DIFF_DURATION per server (default FUZZTIME)
	FUZZTIME=$(or $(FUZZTIME),10m) HOOP_DIFF_DURATION=$(or $(HOOP_DIFF_DURATION),$(FUZZTIME),10m) FUZZ_DIFFERENTIAL=1 ./scripts/fuzz.sh

soak: deps ## run the soak (conformance/soak): 10 minutes, 240 agent connections over postgres, mysql and http, the Control Plane restarted every 30 s; prints the checker's verdict, statements per second, RSS and goroutines (HOOP_SOAK_DURATION, HOOP_SOAK_AGENTS per protocol)
	HOOP_SOAK_DURATION=$(or $(HOOP_SOAK_DURATION),10m) HOOP_SOAK_AGENTS=$(or $(HOOP_SOAK_AGENTS),80) $(GO) test -count=1 -timeout 60m -v -run TestSoak ./conformance/soak/

stop-engine: ## stop the Docker engine that make test (or make image) started here, if it did; one started otherwise is left alone
	./scripts/docker-engine.sh stop

clean: ## remove build output and the make-run state: the next make run starts from an empty Control Plane
	rm -rf bin .run
