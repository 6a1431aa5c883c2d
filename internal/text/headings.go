package text

import "regexp"

// InnerHeading matches the heading line of a section the corpus merged into a passage's text
// ("### Locks" inside "Channel communication": two to six hashes, as the corpus writes the
// section's level); group 1 is the heading. One hash is no heading here: a line opening with one
// is as often a comment in a code sample ("# In .htaccess: route all requests to a front
// controller"). The corpus reads it in snippets and the answer cuts a passage's text at it.
var InnerHeading = regexp.MustCompile(`(?m)^ {0,3}#{2,6}[ \t]+(.+?)[ \t]*$`)
