package config

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"
)

func lookupIn(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnvDefaults(t *testing.T) {
	e, err := fromLookup(lookupIn(nil))
	if err != nil {
		t.Fatal(err)
	}
	if e.TemporalAddress != "localhost:7233" || e.TemporalNamespace != "default" || e.TaskQueue != "sated-research" ||
		e.MemoryTaskQueue != "sated-memory" || e.FetchTimeout != DefaultFetchTimeout || e.UIURL != "http://localhost:8233" ||
		e.DuckDuckGoURL == "" || e.OllamaHost != "" || e.FetchAllow != nil || e.Tuning != (ModelTuning{}) ||
		!e.SearchCache || e.CacheTTL != 24*time.Hour || e.ChunkBudget != 12000 {
		t.Fatalf("defaults drifted: %+v", e)
	}
	if !filepath.IsAbs(e.DataDir) || filepath.Base(e.DataDir) != ".sated" {
		t.Fatalf("data dir must be absolute: %s", e.DataDir)
	}
}

func TestFromEnvGoodValues(t *testing.T) {
	cases := []struct {
		env   map[string]string
		check func(Env) bool
	}{
		{map[string]string{"SATED_FETCH_TIMEOUT": "5s"}, func(e Env) bool { return e.FetchTimeout == 5*time.Second }},
		{map[string]string{"SATED_FETCH_TIMEOUT": "  1m30s "}, func(e Env) bool { return e.FetchTimeout == 90*time.Second }},
		{map[string]string{}, func(e Env) bool { return e.LogLevel == slog.LevelInfo }},
		{map[string]string{"SATED_LOG_LEVEL": "debug"}, func(e Env) bool { return e.LogLevel == slog.LevelDebug }},
		{map[string]string{}, func(e Env) bool { return e.CodecAddr == "" }},
		{map[string]string{"SATED_CODEC_ADDR": "0.0.0.0:8239"}, func(e Env) bool { return e.CodecAddr == "0.0.0.0:8239" }},
		{map[string]string{"SATED_FETCH_ALLOW": " 127.0.0.1, 10.0.0.0/8 ,,"}, func(e Env) bool {
			return len(e.FetchAllow) == 2 && e.FetchAllow[0] == "127.0.0.1" && e.FetchAllow[1] == "10.0.0.0/8"
		}},
		{map[string]string{"TEMPORAL_ADDRESS": "  "}, func(e Env) bool { return e.TemporalAddress == "localhost:7233" }},
		{map[string]string{"SATED_NOTIFY_URL": "http://127.0.0.1:9000/hook", "SATED_NOTIFY_COMMAND": "cat >> /tmp/n"}, func(e Env) bool {
			return e.NotifyURL == "http://127.0.0.1:9000/hook" && e.NotifyCommand == "cat >> /tmp/n"
		}},
		{map[string]string{"TEMPORAL_ADDRESS": "temporal:7233"}, func(e Env) bool { return e.TemporalAddress == "temporal:7233" }},
		{map[string]string{"SATED_DATA_DIR": "/srv/sated"}, func(e Env) bool { return e.DataDir == "/srv/sated" && e.CorpusPath() == "/srv/sated/corpus.db" }},
		{map[string]string{"SATED_BRAVE_API_KEY": " k ", "SATED_BRAVE_URL": "http://b"}, func(e Env) bool {
			return e.BraveAPIKey == "k" && e.BraveURL == "http://b" && e.Var("SATED_BRAVE_API_KEY") == "k"
		}},
		{map[string]string{"SATED_PLANNER_MAX_TOKENS": "0", "SATED_VISION_NUM_CTX": "8192", "SATED_EVALUATOR_TEMPERATURE": "2"}, func(e Env) bool {
			tu := e.Tuning
			return tu.Planner.MaxTokens != nil && *tu.Planner.MaxTokens == 0 && tu.Vision.NumCtx != nil && *tu.Vision.NumCtx == 8192 &&
				tu.Evaluator.Temperature != nil && *tu.Evaluator.Temperature == 2 && tu.Planner.NumCtx == nil && tu.Producer.Temperature == nil
		}},
		{map[string]string{"SATED_UI_URL": "https://ui.example/", "USER": "ada"}, func(e Env) bool { return e.UIURL == "https://ui.example" && e.User == "ada" }},
		{map[string]string{"SATED_SEARCH_CACHE": "off", "SATED_SEARCH_CACHE_TTL": "2h"}, func(e Env) bool { return !e.SearchCache && e.CacheTTL == 2*time.Hour }},
		{map[string]string{"SATED_SEARCH_CACHE": "ON"}, func(e Env) bool { return e.SearchCache }},
		{map[string]string{"SATED_CHUNK_BUDGET": "4000"}, func(e Env) bool { return e.ChunkBudget == 4000 }},
		{map[string]string{"HARNESS_CHUNK_BUDGET": "6000"}, func(e Env) bool { return e.ChunkBudget == 6000 }},
		{map[string]string{"SATED_CHUNK_BUDGET": "4000", "HARNESS_CHUNK_BUDGET": "6000"}, func(e Env) bool { return e.ChunkBudget == 4000 }},
		{map[string]string{"SATED_ACTIVITY_JOURNAL": "/tmp/j"}, func(e Env) bool { return e.ActivityJournal == "/tmp/j" }},
		{map[string]string{"SATED_EMBED_MODEL": "nomic-embed-text", "OLLAMA_HOST": "http://o:11434"}, func(e Env) bool {
			return e.EmbedModel == "nomic-embed-text" && e.OllamaHost == "http://o:11434" && e.Var("USER") == ""
		}},
	}
	for _, c := range cases {
		e, err := fromLookup(lookupIn(c.env))
		if err != nil {
			t.Errorf("%v: %v", c.env, err)
			continue
		}
		if !c.check(e) {
			t.Errorf("%v: got %+v", c.env, e)
		}
	}
}

func TestFromEnvBadValuesNameTheVariable(t *testing.T) {
	cases := []struct{ name, value, want string }{
		{"SATED_FETCH_TIMEOUT", "abc", `SATED_FETCH_TIMEOUT="abc": not a duration`},
		{"SATED_LOG_LEVEL", "loud", `SATED_LOG_LEVEL="loud": want debug, info, warn or error`},
		{"SATED_CODEC_ADDR", "8239", `SATED_CODEC_ADDR="8239": want host:port, e.g. 127.0.0.1:8239`},
		{"SATED_CODEC_ADDR", "localhost:http", `SATED_CODEC_ADDR="localhost:http": want host:port, e.g. 127.0.0.1:8239`},
		{"SATED_FETCH_TIMEOUT", "20", `SATED_FETCH_TIMEOUT="20": not a duration`},
		{"SATED_FETCH_TIMEOUT", "0s", `SATED_FETCH_TIMEOUT="0s": not a positive duration`},
		{"SATED_FETCH_TIMEOUT", "-5s", `SATED_FETCH_TIMEOUT="-5s": not a positive duration`},
		{"SATED_PLANNER_MAX_TOKENS", "many", `SATED_PLANNER_MAX_TOKENS="many": not a non-negative integer`},
		{"SATED_EMBEDDER_NUM_CTX", "-1", `SATED_EMBEDDER_NUM_CTX="-1": not a non-negative integer`},
		{"SATED_PRODUCER_TEMPERATURE", "2.5", `SATED_PRODUCER_TEMPERATURE="2.5": not a number in [0,2]`},
		{"SATED_VISION_TEMPERATURE", "hot", `SATED_VISION_TEMPERATURE="hot": not a number in [0,2]`},
		{"SATED_PLANNER_TEMPERATURE", "NaN", `SATED_PLANNER_TEMPERATURE="NaN": not a number in [0,2]`},
		{"SATED_PLANNER_TEMPERATURE", "Inf", `SATED_PLANNER_TEMPERATURE="Inf": not a number in [0,2]`},
		{"SATED_SEARCH_CACHE", "maybe", `SATED_SEARCH_CACHE="maybe": want on or off`},
		{"SATED_SEARCH_CACHE_TTL", "1d", `SATED_SEARCH_CACHE_TTL="1d": not a duration`},
		{"SATED_SEARCH_CACHE_TTL", "-1h", `SATED_SEARCH_CACHE_TTL="-1h": not a positive duration`},
		{"SATED_SEARCH_CACHE_TTL", "NaN", `SATED_SEARCH_CACHE_TTL="NaN": not a duration`},
		{"SATED_CHUNK_BUDGET", "-5", `SATED_CHUNK_BUDGET="-5": not a positive integer up to 10000000 (characters)`},
		{"SATED_CHUNK_BUDGET", "NaN", `SATED_CHUNK_BUDGET="NaN": not a positive integer up to 10000000 (characters)`},
		{"SATED_CHUNK_BUDGET", "0", `SATED_CHUNK_BUDGET="0": not a positive integer up to 10000000 (characters)`},
		{"HARNESS_CHUNK_BUDGET", "1e3", `HARNESS_CHUNK_BUDGET="1e3": not a positive integer up to 10000000 (characters)`},
		{"SATED_NOTIFY_URL", "hooks.example/x", `SATED_NOTIFY_URL="hooks.example/x": not an http or https URL with a host`},
		{"SATED_NOTIFY_URL", "ftp://h/x", `SATED_NOTIFY_URL="ftp://h/x": not an http or https URL with a host`},
	}
	for _, c := range cases {
		_, err := fromLookup(lookupIn(map[string]string{c.name: c.value}))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s=%q: got %v, want %s", c.name, c.value, err, c.want)
		}
	}
}

func TestFromEnvReadsTheProcessEnvironment(t *testing.T) {
	t.Setenv("SATED_FETCH_TIMEOUT", "abc")
	if _, err := FromEnv(); err == nil {
		t.Fatal("a bad SATED_FETCH_TIMEOUT in the environment was accepted")
	}
	t.Setenv("SATED_FETCH_TIMEOUT", "7s")
	if e, err := FromEnv(); err != nil || e.FetchTimeout != 7*time.Second {
		t.Fatalf("%v %v", e.FetchTimeout, err)
	}
}
