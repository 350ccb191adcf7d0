// Package openaicheck checks OpenAI-style chat messages the way the Chat
// Completions API reads them, for the tests of the packages that export
// conversations.
//
// Schema checks a message against a JSON Schema (the Chat Completions
// message schema from the OpenAI OpenAPI description), using the parts of
// JSON Schema that schema uses: $ref, type, enum, required, properties,
// items, minItems, oneOf and anyOf. Pairing checks the rules no schema
// states: every tool call of an assistant message is answered by a tool
// message right after it, and every tool message answers a call of the
// assistant message it follows. Check does both, the schema part only
// when the schema file is found next to the module (Find).
package openaicheck
