package investigate

import ("testing";"fmt")

func TestDbg(t *testing.T) {
	fmt.Printf("%q\n", mentions("Rob Pike and Dr. Jane Smith discussed the HTTP2 rapid reset (CVE-2023-39325) at Google Inc with the NSA."))
	fmt.Printf("%q\n", Amounts("Google Inc funded the project with $2 million in 2009."))
	fmt.Printf("%q\n", amountRe.FindAllStringSubmatch("Google Inc funded the project with $2 million in 2009.", -1))
	for _, c := range Claims("u", "Go is a language. The Go 1.0 release shipped on March 28, 2012 after years of work. Google Inc funded the project with $2 million in 2009. It is fun to write.", 5) { fmt.Printf("%+v\n", c) }
}
