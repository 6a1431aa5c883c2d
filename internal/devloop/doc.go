// Package devloop holds the offline tuning loop for the extractive answer; it has only tests.
package devloop
