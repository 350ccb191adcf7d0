package simulate

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheUsersStopMessageIsRecorded(t *testing.T) {
	sc := &Scenario{Goal: "g", ConversationID: "c", StopSignal: "###DONE###", MaxTurns: 3,
		Script: map[int]string{0: "hello", 1: "thanks, bye ###DONE###"}}
	res, err := (&Runner{UserModel: stepUser()}).Run(context.Background(), sc, echoTarget())
	require.NoError(t, err)
	assert.Equal(t, StopUser, res.End.Reason)
	assert.Equal(t, "thanks, bye ###DONE###", res.End.StopMessage)
	dir, err := WriteArtifacts(t.TempDir(), res)
	require.NoError(t, err)
	conv, err := os.ReadFile(filepath.Join(dir, ConversationFile))
	require.NoError(t, err)
	assert.Contains(t, string(conv), `"stopMessage":"thanks, bye ###DONE###"`)
}

func TestScriptedTurnsBeyondMaxTurnsAreRefused(t *testing.T) {
	err := (&Scenario{Goal: "g", MaxTurns: 2, Script: map[int]string{2: "never sent"}}).Validate()
	var se *ScenarioError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Script[2]", se.Field)
	assert.Contains(t, se.Reason, "beyond MaxTurns (2)")
	assert.NoError(t, (&Scenario{Goal: "g", MaxTurns: 2, Script: map[int]string{1: "sent"}}).Validate())
	assert.Error(t, (&Scenario{Goal: "g", Script: map[int]string{DefaultMaxTurns: "x"}}).Validate())
}

func TestACountWithoutAnIndexIsNoShard(t *testing.T) {
	t.Setenv(EnvShard, "")
	t.Setenv(EnvShards, "8")
	_, _, err := ShardFromEnv()
	assert.ErrorIs(t, err, ErrInvalidBatch)
	assert.ErrorContains(t, err, "JOB_COMPLETIONS=8 is set but JOB_COMPLETION_INDEX is not")
	t.Setenv(EnvShards, "1")
	shard, shards, err := ShardFromEnv()
	require.NoError(t, err)
	assert.Equal(t, [2]int{0, 1}, [2]int{shard, shards})
}

func TestAJobThatRunsOutOfItsTimeoutFails(t *testing.T) {
	stuck := TargetFunc(func(ctx context.Context, _ []*schema.Message) ([]*schema.Message, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	out := t.TempDir()
	b := &Batch{Scenarios: []*Scenario{{Name: "stuck", Goal: "g"}}, OutDir: out, Progress: io.Discard, JobTimeout: time.Millisecond,
		Runner: &Runner{UserModel: stepUser()}, Target: stuck}
	rep, err := b.Run(context.Background())
	require.NoError(t, err, "the batch itself goes on")
	require.Len(t, rep.Jobs, 1)
	assert.ErrorIs(t, rep.Jobs[0].Err, context.DeadlineExceeded)
	assert.Equal(t, SideSimulator, rep.Jobs[0].End.ErrorSide)
	assert.FileExists(t, filepath.Join(out, "stuck-r0", FailedFile))
}
