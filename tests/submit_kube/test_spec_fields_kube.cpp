// The field table against the Kubernetes mapping: a row marked mapped changes the objects
// render_job makes, beyond the lanectl.io/spec annotation (which holds every field as JSON); a
// row marked not mapped (with its reason) leaves them as they are.
#include <catch2/catch.hpp>

#include "submit/core/spec_fields.h"
#include "submit/kube/fields.h"
#include "submit/kube/mapping.h"
#include "support/spec_field_samples.h"

using namespace lane::submit;
using namespace lane::submit::kube;

namespace {

// The objects of a submission, less the spec annotation.
Json rendered(const JobSpec& spec) {
  Json objects = render_job(KubeSettings{}, spec);
  for (auto& o : objects)
    if (o["metadata"].contains("annotations")) o["metadata"]["annotations"].erase(kSpecAnnotation);
  return objects;
}

}  // namespace

TEST_CASE("spec fields: each row reaches the Kubernetes objects, or says why not", "[submit_kube][fast]") {
  for (const auto& f : spec_fields()) {
    INFO(f.json_key << ": " << f.kube.where);
    auto [without, with] = lane::test::sample_pair(std::string(f.json_key));
    if (f.kube.mapped)
      CHECK(rendered(with) != rendered(without));
    else
      CHECK(rendered(with) == rendered(without));
  }
}
