// Package deploy holds no code: its tests check that docker-compose.yml and worker/Dockerfile
// stay wired to what the worker actually reads, so a new setting cannot ship unconfigured.
package deploy
