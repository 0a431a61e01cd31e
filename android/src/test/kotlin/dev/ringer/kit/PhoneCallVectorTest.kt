package dev.ringer.kit

import java.io.File
import org.json.JSONArray
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import org.junit.runners.Suite

/**
 * Runs the language-neutral vectors of the phone's call machine (TestVectors/phone-call/\*.json, passed as the
 * system property `ringer.vectors`; format in docs/test-vectors.md) against [PhoneCallMachine], as strictly as
 * the Swift runner (Tests/RingerKitTests/PhoneCallVectorTests.swift): unknown keys, missing required keys and
 * values outside the wire vocabulary make a file fail, since the open wire enums would otherwise let a typo pass.
 *
 * Two parts: [EachVector], one JUnit test per file (named after it, so a failure names the vector), and
 * [Strictness], which feeds the runner in-memory vectors to show that it refuses malformed files and reports
 * wrong expectations. A missing folder or one without vectors fails both.
 */
@RunWith(Suite::class)
@Suite.SuiteClasses(PhoneCallVectorTest.EachVector::class, PhoneCallVectorTest.Strictness::class)
class PhoneCallVectorTest {
    /** A vector that cannot be read: what is wrong with it. */
    class VectorError(message: String) : Exception(message)

    /** One test per vector file. */
    @RunWith(Parameterized::class)
    class EachVector(private val file: String) {
        /** The parameters: every vector's file name. */
        companion object {
            /** @throws AssertionError when `ringer.vectors` is unset, missing or holds no vector, so nothing passes vacuously. */
            @JvmStatic @Parameterized.Parameters(name = "{0}")
            fun files(): List<Array<Any>> {
                val files = Vectors.files()
                if (files.isEmpty()) throw AssertionError("no *.json vectors in ${Vectors.folder().path}")
                return files.map { arrayOf<Any>(it.name) }
            }
        }

        @Test fun holds() {
            val failures = try {
                Vectors.run(file, JSONObject(File(Vectors.folder(), file).readText()))
            } catch (e: VectorError) {
                listOf("$file: unreadable vector: ${e.message}")
            } catch (e: org.json.JSONException) {
                listOf("$file: not JSON: ${e.message}")
            }
            if (failures.isNotEmpty()) fail(failures.joinToString("\n"))
        }
    }

    /** The runner itself: it refuses malformed vectors and reports wrong expectations with file and step. */
    class Strictness {
        @Test fun thereAreVectors() {
            val count = Vectors.files().size
            assertTrue("only $count vector files in ${Vectors.folder().path}", count >= 20)
        }

        @Test fun theInMemoryVectorHolds() {
            assertEquals(emptyList<String>(), Vectors.run("memory.json", JSONObject(SAMPLE)))
        }

        /** Each change makes the file malformed: the runner must throw, not read it as absent or as an unknown value. */
        @Test fun malformedVectorsAreRefused() {
            val changes = listOf(
                // A misspelt key is both unknown and, for a required one, missing.
                "\"has_video\": false" to "\"has_vidoe\": false",
                "\"caller\": \"alice\", \"callee_id\"" to "\"caller\": \"alice\", \"calee_id\"",
                // Unknown keys at every level.
                "\"description\":" to "\"finale\": {}, \"description\":",
                "\"device_id\": \"bob-pixel\"" to "\"device_id\": \"bob-pixel\", \"clock\": 0",
                "\"at_ms\": 1800000002000," to "\"at_ms\": 1800000002000, \"note\": \"x\",",
                "\"type\": \"answer\"," to "\"type\": \"answer\", \"answered\": true,",
                "\"end_reason\": \"connection_lost\"" to "\"end_reason\": \"connection_lost\", \"ended_by\": \"bob\"",
                "\"user_id\": \"bob\"" to "\"user_id\": \"bob\", \"token\": \"t\"",
                "\"status\": 409" to "\"status\": 409, \"title\": \"x\"",
                "\"phase\": \"ended\"" to "\"phase\": \"ended\", \"direction\": \"incoming\"",
                "\"clock_offset_ms\": 0 } }" to "\"clock_offset_ms\": 0, \"live_calls\": [] } }",
                // Values outside the wire vocabulary.
                "\"call.ended\"" to "\"call.canceled\"",
                "\"type\": \"answer_refused\"" to "\"type\": \"answer_refuse\"",
                "\"state\": \"ended\"" to "\"state\": \"over\"",
                "\"connection_lost\"" to "\"connection_lst\"",
                "\"call_state\": \"declined\"" to "\"call_state\": \"rejected\"",
                "\"logged_in\"" to "\"signed_in\"",
                "\"end_reason\": \"declined_elsewhere\" }" to "\"end_reason\": \"declined\" }",
                "\"phase\": \"ended\"" to "\"phase\": \"over\"",
                // Missing required fields.
                "\"accepted\": true" to "\"accepted_\": true",
                ", \"end_reason\": \"declined_elsewhere\" }" to " }",
                "\"device_id\": \"bob-pixel\"," to "",
                // Ill-typed values.
                "\"at_ms\": 1800000000000" to "\"at_ms\": \"1800000000000\"",
                "\"at_ms\": 1800000001000" to "\"at_ms\": 1800000001000.5",
                "\"reports_every_push\": false" to "\"reports_every_push\": \"false\"",
                "\"has_video\": false" to "\"has_video\": null",
                "\"status\": 409" to "\"status\": \"409\"",
                // A refusal is the server's problem: without one the input would be a transport failure, no refusal.
                "\"problem\": { \"type\": \"https://ringer.dev/problems/call-state-conflict\", \"status\": 409, \"call_state\": \"declined\" }" to
                    "\"problem\": null")
            for ((from, to) in changes) {
                assertTrue("the sample holds $from", SAMPLE.contains(from))
                try {
                    val failures = Vectors.run("bad.json", JSONObject(SAMPLE.replaceFirst(from, to)))
                    fail("$from -> $to was accepted; failures: $failures")
                } catch (e: VectorError) {
                    assertTrue("$to: ${e.message}", (e.message ?: "").isNotEmpty())
                }
            }
        }

        /** The refusal says where: a misspelt event in the fifth step names `steps[4]` and the bad value. */
        @Test fun aRefusalNamesTheStepAndTheValue() {
            try {
                Vectors.run("bad.json", JSONObject(SAMPLE.replaceFirst("\"call.ended\"", "\"call.canceled\"")))
                fail("call.canceled was accepted")
            } catch (e: VectorError) {
                val message = e.message ?: ""
                assertTrue(message, message.startsWith("steps[4]: ") && message.contains("call.canceled"))
            }
        }

        @Test fun aMissingFinalIsRefused() {
            val vector = JSONObject(SAMPLE)
            vector.remove("final")
            try {
                Vectors.run("bad.json", vector)
                fail("a vector without final was accepted")
            } catch (e: VectorError) {
                assertTrue(e.message ?: "", (e.message ?: "").contains("final"))
            }
        }

        /** A wrong expectation is a failure naming the file and step, not an exception and not a pass. */
        @Test fun wrongExpectationsAreReportedWithFileAndStep() {
            val changes = listOf(
                "\"at_ms\": 1800000032000" to "\"at_ms\": 1800000032001",
                "{ \"type\": \"send_ringing\", \"call_id\": \"$CALL\" }" to "{ \"type\": \"send_ringing\", \"call_id\": \"$CALL\", \"x\": 1 }",
                "{ \"type\": \"send_ringing\", \"call_id\": \"$CALL\" }" to "{ \"type\": \"send_ringin\", \"call_id\": \"$CALL\" }",
                ", { \"type\": \"send_ringing\", \"call_id\": \"$CALL\" }" to "",
                "{ \"type\": \"ringing\", \"call_id\": \"$CALL\" }, { \"type\": \"arm_deadline\", \"call_id\": \"$CALL\", \"at_ms\": 1800000032000 }" to
                    "{ \"type\": \"arm_deadline\", \"call_id\": \"$CALL\", \"at_ms\": 1800000032000 }, { \"type\": \"ringing\", \"call_id\": \"$CALL\" }",
                "\"at_ms\": 1800000032000" to "\"at_ms\": \"1800000032000\"",
                "\"fulfilled\": false" to "\"fulfilled\": \"false\"",
                "\"fulfilled\": false" to "\"fulfilled\": null")
            for ((from, to) in changes) {
                assertTrue("the sample holds $from", SAMPLE.contains(from))
                val failures = Vectors.run("wrong.json", JSONObject(SAMPLE.replaceFirst(from, to)))
                assertEquals("$to: $failures", 1, failures.size)
                assertTrue(failures[0], failures[0].startsWith("wrong.json step 1:") || failures[0].startsWith("wrong.json step 3:"))
            }
        }

        @Test fun wrongFinalStatesAreReported() {
            val changes = listOf(
                "\"phase\": \"ended\"" to "\"phase\": \"active\"",
                "\"end_reason\": \"declined_elsewhere\" }" to "\"end_reason\": null }",
                "\"clock_offset_ms\": 0 } }" to "\"clock_offset_ms\": null } }",
                "\"calls\": {" to "\"calls\": { \"00000000-0000-4000-8000-000000000009\": { \"phase\": \"ringing\", \"end_reason\": null },")
            for ((from, to) in changes) {
                assertTrue("the sample holds $from", SAMPLE.contains(from))
                val failures = Vectors.run("wrong.json", JSONObject(SAMPLE.replaceFirst(from, to)))
                assertEquals("$to: $failures", 1, failures.size)
                assertTrue(failures[0], failures[0].startsWith("wrong.json final:"))
            }
        }

        /** A vector of every field shape the runner reads: a push rings, is answered, the answer loses to a decline elsewhere. */
        private companion object {
            const val CALL = "4f0c2a9e-0000-4000-8000-000000000001"
            val SAMPLE = """
                { "description": "in memory: the answer loses to a decline on another device",
                  "initial": { "device_id": "bob-pixel", "clock_offset_ms": 0 },
                  "steps": [
                    { "at_ms": 1800000000000,
                      "input": { "type": "incoming_push", "call_id": "$CALL", "caller": "alice", "callee_id": "bob",
                                 "has_video": false, "sent_at_ms": 1800000000000, "expires_at_ms": 1800000030000,
                                 "account": { "state": "logged_in", "user_id": "bob" }, "reports_every_push": false },
                      "effects": [ { "type": "report_incoming", "call_id": "$CALL" },
                                   { "type": "push_handled", "call_id": "$CALL", "disposition": "ringing" } ] },
                    { "at_ms": 1800000001000,
                      "input": { "type": "report_finished", "call_id": "$CALL", "accepted": true },
                      "effects": [ { "type": "ringing", "call_id": "$CALL" }, { "type": "arm_deadline", "call_id": "$CALL", "at_ms": 1800000032000 }, { "type": "send_ringing", "call_id": "$CALL" } ] },
                    { "at_ms": 1800000002000,
                      "input": { "type": "answer", "call_id": "$CALL" },
                      "effects": [ { "type": "report_answering", "call_id": "$CALL" },
                                   { "type": "send_accept", "call_id": "$CALL" } ] },
                    { "at_ms": 1800000003000,
                      "input": { "type": "answer_refused", "call_id": "$CALL",
                                 "problem": { "type": "https://ringer.dev/problems/call-state-conflict", "status": 409, "call_state": "declined" } },
                      "effects": [ { "type": "report_ended", "call_id": "$CALL", "reason": "declined_elsewhere" },
                                   { "type": "complete_answer", "call_id": "$CALL", "fulfilled": false },
                                   { "type": "ended", "call_id": "$CALL", "reason": "declined_elsewhere" } ] },
                    { "at_ms": 1800000004000,
                      "input": { "type": "event", "event": "call.ended",
                                 "call": { "call_id": "$CALL", "state": "ended", "caller": "alice", "callee": "bob",
                                           "created_at_ms": 1800000000000, "expires_at_ms": 1800000030000,
                                           "accepted_device_id": "bob-tablet", "end_reason": "connection_lost" } },
                      "effects": [] }
                  ],
                  "final": { "calls": { "$CALL": { "phase": "ended", "end_reason": "declined_elsewhere" } }, "clock_offset_ms": 0 } }
            """
        }
    }

    /** Reading, running and comparing vectors, shared by both parts. */
    object Vectors {
        /** The folder `ringer.vectors` names. @throws AssertionError when the property is unset. */
        fun folder(): File {
            val path = System.getProperty("ringer.vectors") ?: throw AssertionError("system property ringer.vectors is not set")
            return File(path)
        }

        /** The vector files, sorted. @throws AssertionError when the folder does not exist. */
        fun files(): List<File> {
            val folder = folder()
            val listed = folder.listFiles() ?: throw AssertionError("no vectors folder at ${folder.path}")
            return listed.filter { it.name.endsWith(".json") }.sortedBy { it.name }
        }

        // Running one vector

        /** Runs one vector; returns its mismatches ("<file> step <i>: …"), empty when it holds. */
        fun run(file: String, vector: JSONObject): List<String> {
            val failures = ArrayList<String>()
            only(vector, "the file", setOf("description", "initial", "steps", "final"), setOf("description", "initial", "steps", "final"))
            string(vector, "description", "description")
            val initial = obj(vector.opt("initial"), "initial")
            only(initial, "initial", setOf("device_id", "clock_offset_ms"), setOf("device_id"))
            var machine = PhoneCallMachine(string(initial, "device_id", "initial.device_id"), optionalMillis(initial, "clock_offset_ms", "initial"))
            val steps = array(vector.opt("steps"), "steps")
            for (index in 0 until steps.length()) {
                val what = "steps[$index]"
                val step = obj(steps.opt(index), what)
                only(step, what, setOf("at_ms", "input", "effects"), setOf("at_ms", "input", "effects"))
                val atMs = millis(step, "at_ms", what)
                val input = try {
                    input(obj(step.opt("input"), "$what.input"))
                } catch (e: VectorError) {
                    throw VectorError("$what: ${e.message}")
                }
                if (input == PhoneCallInput.Launched) {
                    // A new process: a machine built from what the old one asked to keep, then told it launched.
                    machine = PhoneCallMachine(machine.deviceId, machine.clockOffsetMs, machine.memory)
                }
                val expectedArray = array(step.opt("effects"), "$what.effects")
                val expected = (0 until expectedArray.length()).map { obj(expectedArray.opt(it), "$what.effects[$it]") }
                val actual = machine.handle(input, atMs).map { json(it) }
                if (!sameEffects(actual, expected)) {
                    failures.add("$file step $index: expected ${JSONArray(expected)}, got ${JSONArray(actual)}")
                }
            }
            val final = obj(vector.opt("final"), "final")
            only(final, "final", setOf("calls", "clock_offset_ms"), setOf("calls"))
            val calls = obj(final.opt("calls"), "final.calls")
            for (callId in calls.keys().asSequence().toList().sorted()) {
                val what = "final.calls.$callId"
                val call = obj(calls.opt(callId), what)
                only(call, what, setOf("phase", "end_reason", "held", "muted", "waiting"), setOf("phase", "end_reason"))
                val phase = known(string(call, "phase", "$what.phase"), PhoneCallMachine.Phase.values().map { it.rawValue }.toSet(), "$what.phase")
                val endReason = optionalString(call, "end_reason", what)?.let { known(it, CallEndReason.KNOWN.map { r -> r.rawValue }.toSet(), "$what.end_reason") }
                val actual = machine.calls[callId]
                if (actual?.phase?.rawValue != phase) failures.add("$file final: phase of $callId is ${actual?.phase?.rawValue}, expected $phase")
                if (actual?.endReason?.rawValue != endReason) {
                    failures.add("$file final: end reason of $callId is ${actual?.endReason?.rawValue}, expected $endReason")
                }
                if (call.has("held") && actual?.held != bool(call, "held", "$what.held")) {
                    failures.add("$file final: held of $callId is ${actual?.held}")
                }
                if (call.has("waiting") && actual?.waiting != bool(call, "waiting", "$what.waiting")) {
                    failures.add("$file final: waiting of $callId is ${actual?.waiting}")
                }
                if (call.has("muted") && actual?.muted != bool(call, "muted", "$what.muted")) {
                    failures.add("$file final: muted of $callId is ${actual?.muted}")
                }
            }
            if (final.has("clock_offset_ms")) {
                val expected = optionalMillis(final, "clock_offset_ms", "final")
                if (machine.clockOffsetMs != expected) failures.add("$file final: clock offset is ${machine.clockOffsetMs}, expected $expected")
            }
            return failures
        }

        // Reading, as strictly as the Swift runner

        private val eventTypes = EventType.KNOWN.map { it.rawValue }.toSet()
        private val callStates = CallState.KNOWN.map { it.rawValue }.toSet()
        private val systemEndReasons = SystemEndReason.KNOWN.map { it.rawValue }.toSet()
        private val legStates = LegState.KNOWN.map { it.rawValue }.toSet()

        /** The fields of each input type (docs/test-vectors.md "Inputs"); all are required but `callee_id` and `group`. */
        private val inputFields: Map<String, Set<String>> = mapOf(
            "incoming_push" to setOf("call_id", "caller", "callee_id", "has_video", "sent_at_ms", "expires_at_ms", "account", "reports_every_push", "group", "waiting"),
            "unreadable_push" to setOf("reports_every_push"), "event" to setOf("event", "call"), "update_push" to setOf("event", "call_id"),
            "report_finished" to setOf("call_id", "accepted"), "answer" to setOf("call_id"), "answer_confirmed" to setOf("call_id"),
            "answer_refused" to setOf("call_id", "problem"), "ringing_refused" to setOf("call_id", "problem"), "end" to setOf("call_id"),
            "end_all" to emptySet(), "outgoing_placed" to setOf("call"), "call_read" to setOf("call"),
            "keepalive_refused" to setOf("call_id", "call"), "deadline_reached" to setOf("call_id"), "account_changed" to setOf("account"),
            "server_time" to setOf("server_time_ms"), "phone_clock_changed" to emptySet(), "relaunched" to emptySet(),
            "hang_up_refused" to setOf("call_id", "kind", "problem"),
            "set_held" to setOf("call_id", "held", "by"), "set_muted" to setOf("call_id", "muted", "by"),
            "play_dtmf" to setOf("call_id", "digits", "by"))

        /** Refuses a key the format does not have and a missing required one. */
        private fun only(json: JSONObject, what: String, keys: Set<String>, required: Set<String>) {
            val present = json.keys().asSequence().toSet()
            val unknown = present - keys
            if (unknown.isNotEmpty()) throw VectorError("$what has unknown keys ${unknown.sorted()}")
            val missing = required - present
            if (missing.isNotEmpty()) throw VectorError("$what lacks ${missing.sorted()}")
        }

        private fun known(value: String, names: Set<String>, what: String): String {
            if (value !in names) throw VectorError("$what $value is not one of ${names.sorted()}")
            return value
        }

        private fun obj(value: Any?, what: String): JSONObject = value as? JSONObject ?: throw VectorError("$what is not an object")

        private fun array(value: Any?, what: String): JSONArray = value as? JSONArray ?: throw VectorError("$what is not an array")

        private fun string(json: JSONObject, key: String, what: String): String =
            json.opt(key) as? String ?: throw VectorError("$what is not a string")

        private fun optionalString(json: JSONObject, key: String, what: String): String? {
            if (!json.has(key) || json.isNull(key)) return null
            return json.opt(key) as? String ?: throw VectorError("$what.$key is not a string")
        }

        private fun bool(json: JSONObject, key: String, what: String): Boolean =
            json.opt(key) as? Boolean ?: throw VectorError("$what is not a boolean")

        private fun millis(json: JSONObject, key: String, what: String): Long {
            val value = json.opt(key)
            return when (value) {
                is Int -> value.toLong()
                is Long -> value
                else -> throw VectorError("$what.$key is not a whole number: $value")
            }
        }

        private fun optionalMillis(json: JSONObject, key: String, what: String): Long? =
            if (!json.has(key) || json.isNull(key)) null else millis(json, key, what)

        private fun account(value: Any?): PhoneAccount {
            val account = obj(value, "account")
            only(account, "account", setOf("state", "user_id"), setOf("state"))
            val state = string(account, "state", "account.state")
            return when (state) {
                "launching" -> PhoneAccount.Launching
                "logged_out" -> PhoneAccount.LoggedOut
                "logged_in" -> PhoneAccount.LoggedIn(optionalString(account, "user_id", "account"))
                else -> throw VectorError("unknown account state $state")
            }
        }

        private fun call(value: Any?): Call {
            val call = obj(value, "call")
            only(call, "call", setOf("call_id", "state", "caller", "callee", "created_at_ms", "expires_at_ms", "accepted_device_id",
                "end_reason", "legs", "waiting"), setOf("call_id", "state", "caller", "callee", "created_at_ms", "expires_at_ms"))
            val createdAt = millis(call, "created_at_ms", "call")
            val expiresAt = millis(call, "expires_at_ms", "call")
            val legs = if (!call.has("legs") || call.isNull("legs")) null else {
                val array = array(call.opt("legs"), "call.legs")
                (0 until array.length()).map { index ->
                    val leg = obj(array.opt(index), "call.legs[$index]")
                    only(leg, "call.legs[$index]", setOf("user", "state", "accepted_device_id"), setOf("user", "state"))
                    CallLeg(Party(string(leg, "user", "leg.user")), LegState(known(string(leg, "state", "leg.state"), legStates, "leg.state")),
                        createdAt, expiresAt, acceptedDeviceId = optionalString(leg, "accepted_device_id", "leg"))
                }
            }
            return Call(
                callId = string(call, "call_id", "call.call_id"),
                state = CallState(known(string(call, "state", "call.state"), callStates, "call.state")),
                caller = Party(string(call, "caller", "call.caller")),
                callee = Party(string(call, "callee", "call.callee")),
                hasVideo = false,
                createdAtMs = millis(call, "created_at_ms", "call"),
                expiresAtMs = millis(call, "expires_at_ms", "call"),
                acceptedDeviceId = optionalString(call, "accepted_device_id", "call"),
                endReason = optionalString(call, "end_reason", "call")?.let { SystemEndReason(known(it, systemEndReasons, "call.end_reason")) },
                legs = legs, answerPolicy = if (legs != null) AnswerPolicy.FIRST_ANSWER else null,
                waiting = if (call.has("waiting")) bool(call, "waiting", "call.waiting") else null)
        }

        /** A group's `{count, others: [ids]}`, as a push carries it and a report shows it. */
        private fun group(value: Any?): PushGroup? {
            if (value == null || value == JSONObject.NULL) return null
            val group = obj(value, "group")
            only(group, "group", setOf("count", "others"), setOf("count", "others"))
            val others = array(group.opt("others"), "group.others")
            return PushGroup(millis(group, "count", "group").toInt(),
                (0 until others.length()).map { Party(others.opt(it) as? String ?: throw VectorError("group.others[$it] is not a string")) })
        }

        private fun groupJson(group: PushGroup): JSONObject =
            JSONObject().put("count", group.count).put("others", JSONArray(group.others.map { it.id }))

        private fun legsJson(legs: List<CallLeg>): JSONArray {
            val array = JSONArray()
            for (leg in legs) {
                val json = JSONObject().put("user", leg.user.id).put("state", leg.state.rawValue)
                if (leg.acceptedDeviceId != null) json.put("accepted_device_id", leg.acceptedDeviceId)
                array.put(json)
            }
            return array
        }

        private fun problem(value: Any?): Problem? {
            if (value == null || value == JSONObject.NULL) return null
            val problem = obj(value, "problem")
            only(problem, "problem", setOf("type", "status", "call_state"), setOf("type", "status"))
            return Problem(
                type = string(problem, "type", "problem.type"),
                title = "vector",
                status = millis(problem, "status", "problem").toInt(),
                callState = optionalString(problem, "call_state", "problem")?.let { CallState(known(it, callStates, "problem.call_state")) })
        }

        private fun input(input: JSONObject): PhoneCallInput {
            val type = string(input, "type", "input.type")
            val fields = inputFields[type] ?: throw VectorError("unknown input type $type")
            only(input, "input $type", fields + "type", fields - "callee_id" - "group" - "waiting")
            val callId = { string(input, "call_id", "input.call_id") }
            val event = { EventType(known(string(input, "event", "input.event"), eventTypes, "input.event")) }
            val source = {
                val by = known(string(input, "by", "input.by"), ControlSource.values().map { it.rawValue }.toSet(), "input.by")
                ControlSource.values().first { it.rawValue == by }
            }
            return when (type) {
                "incoming_push" -> {
                    val id = CallIds.normalize(callId()) ?: throw VectorError("call_id is no UUID")
                    val push = IncomingPush(id, Party(string(input, "caller", "input.caller")), optionalString(input, "callee_id", "input"),
                        bool(input, "has_video", "input.has_video"), millis(input, "sent_at_ms", "input"), millis(input, "expires_at_ms", "input"),
                        group(input.opt("group")), input.has("waiting") && bool(input, "waiting", "input.waiting"))
                    PhoneCallInput.IncomingPush(push, account(input.opt("account")), bool(input, "reports_every_push", "input.reports_every_push"))
                }
                "unreadable_push" -> PhoneCallInput.UnreadablePush(bool(input, "reports_every_push", "input.reports_every_push"))
                "event" -> PhoneCallInput.Event(event(), call(input.opt("call")))
                "update_push" -> PhoneCallInput.UpdatePush(event(), callId())
                "report_finished" -> PhoneCallInput.ReportFinished(callId(), bool(input, "accepted", "input.accepted"))
                "answer" -> PhoneCallInput.Answer(callId())
                "answer_confirmed" -> PhoneCallInput.AnswerConfirmed(callId())
                "answer_refused" -> PhoneCallInput.AnswerRefused(callId(),
                    problem(input.opt("problem")) ?: throw VectorError("answer_refused needs a problem"))
                "ringing_refused" -> PhoneCallInput.RingingRefused(callId(),
                    problem(input.opt("problem")) ?: throw VectorError("ringing_refused needs a problem"))
                "hang_up_refused" -> {
                    val kind = known(string(input, "kind", "input.kind"), setOf("decline", "cancel", "end"), "input.kind")
                    PhoneCallInput.HangUpRefused(callId(), PendingCallAction.Kind.values().first { it.wire == kind },
                        problem(input.opt("problem")) ?: throw VectorError("hang_up_refused needs a problem"))
                }
                "end" -> PhoneCallInput.End(callId())
                "end_all" -> PhoneCallInput.EndAll
                "outgoing_placed" -> PhoneCallInput.OutgoingPlaced(call(input.opt("call")))
                "call_read" -> PhoneCallInput.CallRead(call(input.opt("call")))
                "keepalive_refused" -> {
                    val read = input.opt("call")
                    PhoneCallInput.KeepaliveRefused(callId(), if (read == JSONObject.NULL) null else call(read))
                }
                "deadline_reached" -> PhoneCallInput.DeadlineReached(callId())
                "account_changed" -> PhoneCallInput.AccountChanged(account(input.opt("account")))
                "server_time" -> PhoneCallInput.ServerTime(millis(input, "server_time_ms", "input"))
                "phone_clock_changed" -> PhoneCallInput.PhoneClockChanged
                "relaunched" -> PhoneCallInput.Launched
                "set_held" -> PhoneCallInput.SetHeld(callId(), bool(input, "held", "input.held"), source())
                "set_muted" -> PhoneCallInput.SetMuted(callId(), bool(input, "muted", "input.muted"), source())
                "play_dtmf" -> PhoneCallInput.PlayDtmf(callId(), string(input, "digits", "input.digits"), source())
                else -> throw VectorError("unknown input type $type")
            }
        }

        // Writing effects as the vectors spell them, and comparing

        private fun effect(type: String, vararg fields: Pair<String, Any?>): JSONObject {
            val json = JSONObject().put("type", type)
            for ((key, value) in fields) json.put(key, value ?: JSONObject.NULL)
            return json
        }

        private fun json(effect: PhoneCallEffect): JSONObject = when (effect) {
            is PhoneCallEffect.ReportIncoming -> {
                val group = effect.report.group
                if (group == null) effect("report_incoming", "call_id" to effect.callId)
                else effect("report_incoming", "call_id" to effect.callId, "group" to groupJson(group))
            }
            is PhoneCallEffect.ReportDuplicate -> effect("report_duplicate", "call_id" to effect.report.callId)
            is PhoneCallEffect.ReportAndEnd -> effect("report_and_end", "call_id" to effect.callId, "reason" to effect.reason.rawValue)
            is PhoneCallEffect.ReportEnded -> effect("report_ended", "call_id" to effect.callId, "reason" to effect.reason.rawValue)
            is PhoneCallEffect.ReportOutgoingConnected -> effect("report_outgoing_connected", "call_id" to effect.callId)
            is PhoneCallEffect.CompleteAnswer -> effect("complete_answer", "call_id" to effect.callId, "fulfilled" to effect.fulfilled)
            is PhoneCallEffect.ReportAnswering -> effect("report_answering", "call_id" to effect.callId)
            is PhoneCallEffect.ReportAnswered -> effect("report_answered", "call_id" to effect.callId)
            is PhoneCallEffect.PushHandled -> effect("push_handled", "call_id" to effect.callId, "disposition" to effect.disposition.rawValue)
            is PhoneCallEffect.Ringing -> effect("ringing", "call_id" to effect.callId)
            is PhoneCallEffect.Answered -> effect("answered", "call_id" to effect.callId)
            is PhoneCallEffect.Ended -> effect("ended", "call_id" to effect.callId, "reason" to effect.reason?.rawValue)
            is PhoneCallEffect.SendRinging -> effect("send_ringing", "call_id" to effect.callId)
            is PhoneCallEffect.SendAccept -> effect("send_accept", "call_id" to effect.callId)
            is PhoneCallEffect.SendHangUp -> effect("send_hang_up", "call_id" to effect.callId, "kind" to effect.kind.wire)
            is PhoneCallEffect.ArmDeadline -> effect("arm_deadline", "call_id" to effect.callId, "at_ms" to effect.atMs)
            is PhoneCallEffect.StartKeepalive -> effect("start_keepalive", "call_id" to effect.callId)
            is PhoneCallEffect.FetchMedia -> effect("fetch_media", "call_id" to effect.callId)
            is PhoneCallEffect.SaveClockOffset -> effect("save_clock_offset", "offset_ms" to effect.offsetMs)
            is PhoneCallEffect.ParticipantsChanged -> effect("participants_changed", "call_id" to effect.callId, "legs" to legsJson(effect.legs))
            is PhoneCallEffect.RequestHeld -> effect("request_held", "call_id" to effect.callId, "held" to effect.held)
            is PhoneCallEffect.RequestMuted -> effect("request_muted", "call_id" to effect.callId, "muted" to effect.muted)
            is PhoneCallEffect.HeldChanged -> effect("held_changed", "call_id" to effect.callId, "held" to effect.held)
            is PhoneCallEffect.MutedChanged -> effect("muted_changed", "call_id" to effect.callId, "muted" to effect.muted)
            is PhoneCallEffect.RequestDtmf -> effect("request_dtmf", "call_id" to effect.callId, "digits" to effect.digits)
            is PhoneCallEffect.Dtmf -> effect("dtmf", "call_id" to effect.callId, "digits" to effect.digits)
        }

        private fun sameEffects(actual: List<JSONObject>, expected: List<JSONObject>): Boolean =
            actual.size == expected.size && actual.indices.all { sameObject(actual[it], expected[it]) }

        /** Key sets equal, then values: strings and booleans with ==, numbers as Long, NULL with isNull. */
        private fun sameObject(actual: JSONObject, expected: JSONObject): Boolean {
            val keys = actual.keys().asSequence().toSet()
            if (keys != expected.keys().asSequence().toSet()) return false
            return keys.all { key ->
                val a = actual.get(key)
                val e = expected.get(key)
                sameValue(a, e)
            }
        }

        /** One value: objects and arrays member by member, strings and booleans with ==, numbers as Long, NULL alike. */
        private fun sameValue(a: Any?, e: Any?): Boolean = when {
            e == JSONObject.NULL || a == JSONObject.NULL -> e == JSONObject.NULL && a == JSONObject.NULL
            e is Number && a is Number -> (e is Int || e is Long) && e.toLong() == a.toLong()
            e is String || e is Boolean -> e == a
            e is JSONObject && a is JSONObject -> sameObject(a, e)
            e is JSONArray && a is JSONArray -> e.length() == a.length() && (0 until e.length()).all { sameValue(a.opt(it), e.opt(it)) }
            else -> false
        }
    }
}
