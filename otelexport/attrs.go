package otelexport

import (
	"reflect"
	"strings"

	"github.com/cloudwego/eino/schema"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"

	"github.com/lookout-go/lookout/recorder"
)

// schemaURL is the schema of the semantic conventions the spans and
// metrics follow.
const schemaURL = "https://opentelemetry.io/schemas/1.41.0"

// Attributes of semantic conventions 1.41 that the Go semconv package
// this module builds with does not define yet.
const (
	cacheReadKey     = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	cacheCreationKey = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	reasoningKey     = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	agentVersionKey  = attribute.Key("gen_ai.agent.version")
	streamKey        = attribute.Key("gen_ai.request.stream")
)

// other is the conventions' value for a case none of their values
// covers: the gen_ai.provider.name of a model call whose provider the
// records do not name, and the error.type of a model call that failed,
// whose records keep the error's text but no class of it.
const other = "_OTHER"

// mcpToolsCall is the mcp.method.name of a tool call an MCP server
// served.
const mcpToolsCall = "tools/call"

// providers maps how Eino's model implementations name themselves (their
// component type, as in "OpenAI") and common spellings to the
// conventions' well-known values of gen_ai.provider.name. A name not
// here is used lower-cased, as a custom value.
var providers = map[string]string{
	"openai": "openai", "azureopenai": "azure.ai.openai", "azure.ai.openai": "azure.ai.openai",
	"claude": "anthropic", "anthropic": "anthropic",
	"gemini": "gcp.gemini", "gcp.gemini": "gcp.gemini", "vertexai": "gcp.vertex_ai", "gcp.vertex_ai": "gcp.vertex_ai",
	"deepseek": "deepseek", "mistral": "mistral_ai", "mistralai": "mistral_ai", "mistral_ai": "mistral_ai",
	"xai": "x_ai", "x_ai": "x_ai", "grok": "x_ai", "groq": "groq", "cohere": "cohere", "perplexity": "perplexity",
	"bedrock": "aws.bedrock", "aws.bedrock": "aws.bedrock", "watsonx": "ibm.watsonx.ai", "ibm.watsonx.ai": "ibm.watsonx.ai",
}

// providerName is the gen_ai.provider.name of a recorded provider: the
// well-known value it names, else the name lower-cased, else other when
// nothing was recorded.
func providerName(p string) string {
	if p == "" {
		return other
	}
	if v, ok := providers[p]; ok {
		return v
	}
	l := strings.ToLower(p)
	if v, ok := providers[l]; ok {
		return v
	}
	return l
}

// responseIDKeys are the keys under which Eino's model implementations
// keep the provider's id of a completion in the reply's Extra (eino-ext's
// OpenAI client, and the clients built on it, use the first).
var responseIDKeys = []string{"openai-request-id", "ark-request-id"}

// responseID returns the provider's id of the completion m, when its
// model implementation kept one.
func responseID(m *schema.Message) string {
	if m == nil || len(m.Extra) == 0 {
		return ""
	}
	for _, k := range responseIDKeys {
		if v, ok := m.Extra[k]; ok {
			return stringOf(v)
		}
	}
	return ""
}

// stringOf returns v as a string: a string, or a value of a named string
// type, as a client keeps it in memory before the record is written.
func stringOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return rv.String()
	}
	return ""
}

// usageAttrs are the gen_ai.usage.* attributes of usage: input and
// output always, the cache and reasoning counts when not zero.
func usageAttrs(kv []attribute.KeyValue, u recorder.TokenUsage) []attribute.KeyValue {
	kv = append(kv, semconv.GenAIUsageInputTokens(int(u.PromptTokens)), semconv.GenAIUsageOutputTokens(int(u.CompletionTokens)))
	if u.CachedTokens > 0 {
		kv = append(kv, cacheReadKey.Int64(u.CachedTokens))
	}
	if u.CacheWriteTokens > 0 {
		kv = append(kv, cacheCreationKey.Int64(u.CacheWriteTokens))
	}
	if u.ReasoningTokens > 0 {
		kv = append(kv, reasoningKey.Int64(u.ReasoningTokens))
	}
	return kv
}

// addUsage adds u to sum.
func addUsage(sum *recorder.TokenUsage, u recorder.TokenUsage) {
	sum.PromptTokens += u.PromptTokens
	sum.CompletionTokens += u.CompletionTokens
	sum.TotalTokens += u.TotalTokens
	sum.CachedTokens += u.CachedTokens
	sum.CacheWriteTokens += u.CacheWriteTokens
	sum.ReasoningTokens += u.ReasoningTokens
}

// mcpAttrs are the mcp.* attributes, and Lookout's, of a tool call that
// an MCP server served.
func mcpAttrs(kv []attribute.KeyValue, p *recorder.ToolStarted) []attribute.KeyValue {
	if p.MCPServer == "" && p.MCPTool == "" {
		return kv
	}
	kv = append(kv, semconv.McpMethodNameKey.String(mcpToolsCall))
	if p.MCPServer != "" {
		kv = append(kv, MCPServerKey.String(p.MCPServer))
	}
	if p.MCPTool != "" {
		kv = append(kv, MCPToolKey.String(p.MCPTool))
	}
	return kv
}
