// The compose tests check that docker-compose.yml and worker/Dockerfile stay wired to what
// the worker actually reads, so a new setting cannot ship unconfigured.
package main_test

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

const root = ".."

type composeFile struct {
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

type service struct {
	Image       string            `yaml:"image"`
	Build       *build            `yaml:"build"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	DependsOn   dependsOn         `yaml:"depends_on"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Command     []string          `yaml:"command"`
	Profiles    []string          `yaml:"profiles"`
}

type build struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
}

// dependsOn accepts both compose forms: a list of names or a map of name to condition.
type dependsOn []string

func (d *dependsOn) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.SequenceNode:
		var names []string
		if err := n.Decode(&names); err != nil {
			return err
		}
		*d = names
	case yaml.MappingNode:
		for i := 0; i < len(n.Content); i += 2 {
			*d = append(*d, n.Content[i].Value)
		}
	default:
		return fmt.Errorf("depends_on: want a list or a map, got %v", n.Tag)
	}
	return nil
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	require.NoError(t, err)
	var c composeFile
	require.NoError(t, yaml.Unmarshal(b, &c), "docker-compose.yml must parse (environment must be a map)")
	return c
}

var interpolation = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(?::?-([^}]*))?\}`)

// resolve applies compose interpolation as a user without overrides sees it: defaults win.
func resolve(v string) string {
	v = interpolation.ReplaceAllString(v, "$2")
	return strings.ReplaceAll(v, "$$", "$")
}

func env(t *testing.T, s service, name, key string) string {
	t.Helper()
	v, ok := s.Environment[key]
	require.Truef(t, ok, "service %s: environment lacks %s", name, key)
	return resolve(v)
}

// containerPorts lists the container side of each "host:container" mapping.
func containerPorts(s service) []string {
	var out []string
	for _, p := range s.Ports {
		out = append(out, p[strings.LastIndex(p, ":")+1:])
	}
	return out
}

func TestComposeServicesExistWithPinnedImages(t *testing.T) {
	c := loadCompose(t)
	for _, name := range []string{"postgresql", "temporal", "temporal-ui", "meilisearch", "ollama", "ollama-pull", "worker", "starter"} {
		s, ok := c.Services[name]
		require.Truef(t, ok, "service %s missing", name)
		if s.Build != nil {
			continue
		}
		_, tag, ok := strings.Cut(s.Image, ":")
		require.Truef(t, ok && tag != "" && tag != "latest", "service %s: image %q must have a pinned tag", name, s.Image)
	}
	require.Contains(t, c.Services["starter"].Profiles, "cli", "the starter is a run-only CLI, not started by up")
	require.Equal(t, c.Services["worker"].Image, c.Services["starter"].Image, "the starter runs the image the worker builds")
}

func TestComposeWorkerReachesServicesByName(t *testing.T) {
	c := loadCompose(t)
	for _, name := range []string{"worker", "starter"} {
		s := c.Services[name]
		tests := []struct {
			key, service, port string
			isURL              bool
		}{
			{"TEMPORAL_ADDRESS", "temporal", "7233", false},
			{"OLLAMA_HOST", "ollama", "11434", true},
			{"MEILI_URL", "meilisearch", "7700", true},
		}
		for _, tt := range tests {
			hostport := env(t, s, name, tt.key)
			if tt.isURL {
				u, err := url.Parse(hostport)
				require.NoError(t, err)
				require.Equalf(t, "http", u.Scheme, "%s %s", name, tt.key)
				hostport = u.Host
			}
			host, port, err := net.SplitHostPort(hostport)
			require.NoErrorf(t, err, "%s %s=%q", name, tt.key, hostport)
			require.Equalf(t, tt.service, host, "%s %s must name the compose service", name, tt.key)
			require.Equalf(t, tt.port, port, "%s %s port", name, tt.key)
			require.Containsf(t, containerPorts(c.Services[tt.service]), port, "service %s must expose %s", tt.service, port)
		}
		require.Equal(t, env(t, c.Services["meilisearch"], "meilisearch", "MEILI_MASTER_KEY"), env(t, s, name, "MEILI_API_KEY"),
			"%s MEILI_API_KEY must default to Meilisearch's master key", name)
		require.NotEmpty(t, env(t, s, name, "MEILI_API_KEY"))
		require.Contains(t, mountTargets(s), env(t, s, name, "SATED_DATA_DIR"), "%s data dir must be a volume", name)
	}
	require.Equal(t, env(t, c.Services["worker"], "worker", "TEMPORAL_ADDRESS"),
		env(t, c.Services["temporal-ui"], "temporal-ui", "TEMPORAL_ADDRESS"))
	temporal := c.Services["temporal"]
	require.Equal(t, "postgresql", env(t, temporal, "temporal", "POSTGRES_SEEDS"))
	require.Contains(t, temporal.DependsOn, "postgresql")
	require.Equal(t, env(t, c.Services["postgresql"], "postgresql", "POSTGRES_PASSWORD"), env(t, temporal, "temporal", "POSTGRES_PWD"))
}

func TestComposePublishedPorts(t *testing.T) {
	c := loadCompose(t)
	tests := []struct{ service, mapping string }{
		{"temporal", "7233:7233"},
		{"temporal-ui", "8233:8080"},
		{"meilisearch", "7700:7700"},
		{"ollama", "11434:11434"},
		{"worker", "8239:8239"}, // the payload codec, which the browser calls from the UI
	}
	for _, tt := range tests {
		require.Containsf(t, c.Services[tt.service].Ports, tt.mapping, "service %s ports", tt.service)
	}
	// the UI's codec endpoint is the worker's published codec port
	ui := resolve(env(t, c.Services["temporal-ui"], "temporal-ui", "TEMPORAL_CODEC_ENDPOINT"))
	codecAddr := resolve(env(t, c.Services["worker"], "worker", "SATED_CODEC_ADDR"))
	require.Equal(t, "http://localhost:8239", ui)
	require.True(t, strings.HasSuffix(codecAddr, ":8239"), "the worker serves the codec on %s", codecAddr)
}

func mountTargets(s service) []string {
	var out []string
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 {
			out = append(out, parts[1])
		}
	}
	return out
}

func TestComposeVolumesPersistAndAreDeclared(t *testing.T) {
	c := loadCompose(t)
	persistent := []struct{ service, target string }{
		{"postgresql", "/var/lib/postgresql/data"},
		{"meilisearch", "/meili_data"},
		{"ollama", "/root/.ollama"},
		{"worker", "/data"},
	}
	for _, p := range persistent {
		require.Containsf(t, mountTargets(c.Services[p.service]), p.target, "service %s must keep %s on a volume", p.service, p.target)
	}
	used := map[string]bool{}
	for name, s := range c.Services {
		for _, v := range s.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if strings.HasPrefix(src, ".") || strings.HasPrefix(src, "/") {
				continue // bind mount
			}
			_, ok := c.Volumes[src]
			require.Truef(t, ok, "service %s uses undeclared volume %s", name, src)
			used[src] = true
		}
		for _, dep := range s.DependsOn {
			_, ok := c.Services[dep]
			require.Truef(t, ok, "service %s depends on unknown service %s", name, dep)
		}
	}
	for v := range c.Volumes {
		require.Truef(t, used[v], "volume %s is declared but unused", v)
	}
}

// testHooks are variables the worker reads only for tests; a deployment leaves them unset.
var testHooks = map[string]bool{
	"SATED_ACTIVITY_JOURNAL": true, // appends every activity start and completion to a file for the reliability tests
	"SATED_ACTIVITY_HOLD":    true, // holds an activity kind so the reliability tests can kill the worker then
}

var envRead = regexp.MustCompile(`(?:getenv|os\.Getenv|os\.LookupEnv)\("([A-Z][A-Z0-9_]*)"`)

// envVarsRead lists the variables the worker's configuration code reads.
func envVarsRead(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"internal/config", "worker"} {
		m, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		require.NoError(t, err)
		files = append(files, m...)
	}
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fh, err := os.Open(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			for _, m := range envRead.FindAllStringSubmatch(sc.Text(), -1) {
				if !slices.Contains(names, m[1]) {
					names = append(names, m[1])
				}
			}
		}
		require.NoError(t, sc.Err())
		require.NoError(t, fh.Close())
	}
	return names
}

func TestComposeSetsEveryVariableTheWorkerReads(t *testing.T) {
	names := envVarsRead(t)
	// If the pattern stops matching config.FromEnv, this test would pass vacuously.
	for _, must := range []string{"TEMPORAL_ADDRESS", "OLLAMA_HOST", "MEILI_URL", "SATED_DATA_DIR", "SATED_PLANNER_MODEL"} {
		require.Containsf(t, names, must, "the scan of internal/config and worker no longer finds %s", must)
	}
	c := loadCompose(t)
	for _, svc := range []string{"worker", "starter"} {
		for _, n := range names {
			if testHooks[n] {
				continue
			}
			_, ok := c.Services[svc].Environment[n]
			require.Truef(t, ok, "docker-compose.yml service %s does not set %s, which the worker reads", svc, n)
		}
	}
}

func TestOllamaPullFetchesTheWorkerModels(t *testing.T) {
	c := loadCompose(t)
	pull := c.Services["ollama-pull"]
	require.Contains(t, pull.DependsOn, "ollama")
	script := strings.Join(pull.Command, " ")
	host := env(t, pull, "ollama-pull", "OLLAMA_HOST")
	require.Equal(t, env(t, c.Services["worker"], "worker", "OLLAMA_HOST"), host, "ollama-pull must pull into the worker's Ollama")
	found := 0
	for k, v := range c.Services["worker"].Environment {
		if !strings.HasSuffix(k, "_MODEL") {
			continue
		}
		found++
		require.NotEmptyf(t, resolve(v), "worker %s has no default model", k)
		require.Equalf(t, v, pull.Environment[k], "ollama-pull must see the worker's %s", k)
		require.Containsf(t, script, "$$"+k, "ollama-pull command must pull %s", k)
	}
	require.GreaterOrEqual(t, found, 4, "planner, producer, evaluator and embed models")
}

func TestWorkerDockerfileBuildsFromExistingSources(t *testing.T) {
	c := loadCompose(t)
	b := c.Services["worker"].Build
	require.NotNil(t, b, "the worker is built from source")
	ctx := filepath.Join(root, b.Context)
	df, err := os.ReadFile(filepath.Join(ctx, b.Dockerfile))
	require.NoError(t, err, "worker Dockerfile")
	text := string(df)
	sources := 0
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.EqualFold(f[0], "COPY") || strings.HasPrefix(f[1], "--from") {
			continue
		}
		for _, src := range f[1 : len(f)-1] {
			_, err := os.Stat(filepath.Join(ctx, src))
			require.NoErrorf(t, err, "Dockerfile copies %s, which is not in the build context", src)
			sources++
		}
	}
	require.Positive(t, sources)
	require.Contains(t, text, "./worker")
	require.Contains(t, text, "./starter")
	require.Regexp(t, `(?m)^ENTRYPOINT \["worker"\]`, text)
	require.Equal(t, []string{"starter"}, c.Services["starter"].Entrypoint)
}

// transferPollKey is the Temporal setting that caps how often new tasks move to workers.
const transferPollKey = "history.transferProcessorMaxPollRPS"

// TestTemporalHandsOnTasksWithoutThePollCap: both Temporal servers sated starts, docker
// compose's and the dev server of scripts/services.sh, lift the 20-a-second cap on moving new
// tasks to workers (every hand-off of a run otherwise waits for a 50 ms tick once the burst is
// spent), to the same value.
func TestTemporalHandsOnTasksWithoutThePollCap(t *testing.T) {
	c := loadCompose(t)
	temporal := c.Services["temporal"]
	path := env(t, temporal, "temporal", "DYNAMIC_CONFIG_FILE_PATH")
	target := "/etc/temporal/" + path // the auto-setup image resolves it from /etc/temporal
	var source string
	for _, v := range temporal.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == target {
			source = parts[0]
		}
	}
	require.NotEmptyf(t, source, "the temporal service must mount its dynamic config at %s", target)
	b, err := os.ReadFile(filepath.Join(root, source))
	require.NoError(t, err)
	var dc map[string][]struct {
		Value int `yaml:"value"`
	}
	require.NoError(t, yaml.Unmarshal(b, &dc), source)
	require.Lenf(t, dc[transferPollKey], 1, "%s must set %s once", source, transferPollKey)
	rps := dc[transferPollKey][0].Value
	require.GreaterOrEqual(t, rps, 1000, "%s in %s", transferPollKey, source)

	script, err := os.ReadFile(filepath.Join(root, "scripts", "services.sh"))
	require.NoError(t, err)
	require.Contains(t, string(script), fmt.Sprintf("%s=%d", transferPollKey, rps), "services.sh must start the dev server with the compose value")
	require.Contains(t, string(script), `--dynamic-config-value "$TRANSFER_POLL_RPS"`, "services.sh must pass it to start-dev")
}
