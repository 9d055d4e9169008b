-- Argo CD health check for jobset.x-k8s.io/v1alpha2 JobSet (Trainyard).
-- Argo CD has no built-in JobSet check, and a resource without one is left out of the app's health,
-- so an app of JobSets would show Healthy at once. Installed as the argocd-cm key
-- resource.customizations.health.jobset.x-k8s.io_JobSet (argo-cd docs/operator-manual/health.md).
--
-- Argo CD runs this with the live object in the global `obj` and only the base, table, package and a
-- safe os library loaded (util/lua/lua.go: no `string` library unless useOpenLibs is set), so this
-- script uses only the base library and `..`.
--
-- Fields read, as declared by JobSet v0.12.0 (api/jobset/v1alpha2/jobset_types.go; CRD
-- config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml):
--   spec.suspend                    bool; Kueue sets it while the run waits for quota. The only suspension
--                                   signal read: the Suspended condition lags it (Kueue clears spec.suspend,
--                                   the JobSet controller flips the condition on its next pass), so a just
--                                   admitted run would read "waiting in the queue" while its pods start.
--   spec.failurePolicy.maxRestarts  int32
--   status.conditions[]             metav1.Condition {type, status "True"|"False", reason, message};
--                                   types Completed, Failed, RestartingJobSet read here
--   status.restarts                 int32, whole-JobSet restarts so far; raised in the same status
--                                   update that sets RestartingJobSet=True (pkg/controllers/failure_policy.go)
--   status.restartsCountTowardsMax  int32, the restarts that count against maxRestarts (a
--                                   RestartJobSetAndIgnoreMaxRestarts rule raises restarts, not this);
--                                   preferred for "N of maxRestarts" when present, with the total after it
--                                   when the two differ
--   metadata.labels["kueue.x-k8s.io/queue-name"]  the LocalQueue the run waits in
-- Order: a finished run (Failed, then Completed) wins over everything else, then a suspended one.

local function trueCondition(conditionType)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, condition in ipairs(obj.status.conditions) do
    if condition.type == conditionType and condition.status == "True" then
      return condition
    end
  end
  return nil
end

local function conditionText(condition, fallback)
  if condition.message ~= nil and condition.message ~= "" then
    return condition.message
  end
  if condition.reason ~= nil and condition.reason ~= "" then
    return condition.reason
  end
  return fallback
end

local function restarts()
  if obj.status ~= nil and obj.status.restarts ~= nil then
    return obj.status.restarts
  end
  return 0
end

local function restartLimit()
  if obj.spec ~= nil and obj.spec.failurePolicy ~= nil and obj.spec.failurePolicy.maxRestarts ~= nil then
    return " of " .. obj.spec.failurePolicy.maxRestarts
  end
  return ""
end

-- The restarts that count against maxRestarts: restartsCountTowardsMax when the JobSet reports it.
local function countedRestarts()
  if obj.status ~= nil and obj.status.restartsCountTowardsMax ~= nil then
    return obj.status.restartsCountTowardsMax
  end
  return restarts()
end

-- ", 5 in all" when restarts that do not count against maxRestarts happened too; else "".
local function uncounted()
  if countedRestarts() ~= restarts() then
    return ", " .. restarts() .. " in all"
  end
  return ""
end

local function queueName()
  if obj.metadata ~= nil and obj.metadata.labels ~= nil then
    return obj.metadata.labels["kueue.x-k8s.io/queue-name"]
  end
  return nil
end

local function suspendedMessage()
  local queue = queueName()
  if queue ~= nil and queue ~= "" then
    return "waiting in the Kueue queue " .. queue
  end
  return "waiting in the Kueue queue"
end

local hs = {}
local failed = trueCondition("Failed")
local completed = trueCondition("Completed")
local restarting = trueCondition("RestartingJobSet")
if failed ~= nil then
  hs.status = "Degraded"
  hs.message = conditionText(failed, "JobSet failed")
elseif completed ~= nil then
  hs.status = "Healthy"
  hs.message = conditionText(completed, "JobSet completed")
elseif obj.spec ~= nil and obj.spec.suspend == true then
  hs.status = "Suspended"
  hs.message = suspendedMessage()
elseif restarting ~= nil then
  hs.status = "Progressing"
  hs.message = "restarting after a failure: restart " .. countedRestarts() .. restartLimit() .. uncounted()
    .. " (" .. conditionText(restarting, "RestartingJobSet") .. ")"
elseif obj.status == nil or obj.status.conditions == nil then
  hs.status = "Progressing"
  hs.message = "waiting for the JobSet controller"
elseif restarts() > 0 then
  hs.status = "Progressing"
  hs.message = "running after " .. countedRestarts() .. restartLimit() .. " restarts" .. uncounted()
else
  hs.status = "Progressing"
  hs.message = "running"
end
return hs
