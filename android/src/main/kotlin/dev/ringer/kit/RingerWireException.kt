package dev.ringer.kit

/**
 * A payload from the server or a push did not have the shape the wire format promises: a required field
 * was missing, had the wrong JSON type, or the text was not JSON at all.
 *
 * Thrown by every `fromJson` of the wire types instead of a `JSONException`, `ClassCastException` or
 * `NullPointerException`, so callers catch one type for "the other side sent something unreadable".
 * Unknown keys never cause it: a newer server may add fields.
 *
 * @property detail what was wrong, naming the field (`Call.call_id is missing`); never includes token values.
 */
class RingerWireException(val detail: String) : Exception(detail)
