// The svc durable-workflow queue service: the account record as outputs, workflows checked against its limits, and the recovery of failed runs from the DLQ.
package svc
