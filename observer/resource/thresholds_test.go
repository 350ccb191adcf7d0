package resource_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lookout-go/lookout/observer/resource"
)

func TestThresholdsAreTheFieldsOrTheirDefaults(t *testing.T) {
	caution, warning := resource.New().Thresholds()
	assert.Equal(t, resource.DefaultCautionAt, caution)
	assert.Equal(t, resource.DefaultWarningAt, warning)

	caution, warning = (&resource.Observer{CautionAt: 0.5}).Thresholds()
	assert.Equal(t, 0.5, caution)
	assert.Equal(t, resource.DefaultWarningAt, warning, "an unset field gets its default")
}
