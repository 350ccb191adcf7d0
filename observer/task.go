package observer

// Task is the session value describing what the run was asked to do. The
// adapter seeds it from the first user message:
//
//	session.ValueOf[observer.Task](store).Seed(observer.Task{Prompt: firstUserMessage})
//
// Because it lives in the session it survives snapshots, and a sub-agent
// sharing the session sees the same task. The drift detector reads it to know the
// task's scope. The zero Task means no task is known. It is a plain value;
// replace it in the session rather than modifying its Scope in place.
type Task struct {
	// Prompt is the first user message.
	Prompt string `json:"prompt,omitempty"`
	// Scope lists the paths, hosts and resource names the task is about,
	// such as "services/billing", "api.stripe.com" or "billing-db". When
	// it is set it is the whole scope; when it is empty the scope is taken
	// from Prompt and the run's first calls.
	Scope []string `json:"scope,omitempty"`
}
