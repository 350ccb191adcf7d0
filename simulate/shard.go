package simulate

import (
	"fmt"
	"os"
	"strconv"
)

// Environment variables ShardFromEnv reads. Kubernetes sets
// JOB_COMPLETION_INDEX in every pod of an Indexed Job; the Job's
// completions count is not in the pod's environment, so the manifest sets
// JOB_COMPLETIONS to the same number as spec.completions.
const (
	EnvShard  = "JOB_COMPLETION_INDEX"
	EnvShards = "JOB_COMPLETIONS"
)

// ShardFromEnv returns the shard of this process and the number of shards,
// for Batch.Shard and Batch.Shards, from the Kubernetes Indexed Job
// variables EnvShard and EnvShards. Without either it returns 0 and 1, one
// shard holding every job. A count above one without an index (a pod
// that would run every job, in every pod), an index without a count,
// values that are not
// numbers, a count below one or an index outside [0, count) are errors
// wrapping ErrInvalidBatch.
func ShardFromEnv() (shard, shards int, err error) {
	idx := os.Getenv(EnvShard)
	if idx == "" {
		if n := os.Getenv(EnvShards); n != "" && n != "1" {
			return 0, 0, fmt.Errorf("%w: %s=%s is set but %s is not: is the Job's completionMode Indexed?", ErrInvalidBatch, EnvShards, n, EnvShard)
		}
		return 0, 1, nil
	}
	shard, err = strconv.Atoi(idx)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s=%q is not a number", ErrInvalidBatch, EnvShard, idx)
	}
	shards, err = shardsFromEnv()
	if err != nil {
		return 0, 0, err
	}
	if shard < 0 || shard >= shards {
		return 0, 0, fmt.Errorf("%w: %s=%d is not below %s=%d", ErrInvalidBatch, EnvShard, shard, EnvShards, shards)
	}
	return shard, shards, nil
}

// shardsFromEnv reads the number of shards from EnvShards, which must be
// set, once EnvShard is, to a positive number.
func shardsFromEnv() (int, error) {
	count := os.Getenv(EnvShards)
	if count == "" {
		return 0, fmt.Errorf("%w: %s is set but %s is not; set it to the Job's completions", ErrInvalidBatch, EnvShard, EnvShards)
	}
	shards, err := strconv.Atoi(count)
	if err != nil || shards < 1 {
		return 0, fmt.Errorf("%w: %s=%q is not a positive number", ErrInvalidBatch, EnvShards, count)
	}
	return shards, nil
}
