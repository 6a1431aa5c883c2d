// Package deps pins the modules the project builds on while the packages that use them are
// being written; it is removed once each is imported for real.
package deps

import (
	_ "github.com/JohannesKaufmann/html-to-markdown/v2"
	_ "github.com/PuerkitoBio/goquery"
	_ "github.com/meilisearch/meilisearch-go"
	_ "github.com/ollama/ollama/api"
	_ "github.com/philippgille/chromem-go"
	_ "github.com/stretchr/testify/require"
	_ "go.temporal.io/sdk/client"
	_ "go.temporal.io/sdk/temporal"
	_ "go.temporal.io/sdk/testsuite"
	_ "go.temporal.io/sdk/worker"
	_ "go.temporal.io/sdk/workflow"
	_ "golang.org/x/net/html"
	_ "gopkg.in/yaml.v3"
	_ "modernc.org/sqlite"
)
