//! Gemini's JSON, as typed serde structs: the parts Omni sends, the stream chunks it
//! reads, and the error objects the API returns. JSON that Omni keeps but does not
//! interpret (function arguments and results, parts of unknown kinds) travels as raw text,
//! byte for byte.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A part as sent: text (or a thought), a function call, a function response, or a part
/// of another kind written back exactly as it arrived.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum PartOut<'a> {
    /// `{"text", "thought"?, "thoughtSignature"?}`.
    Text {
        /// The text.
        text: &'a str,
        /// Set for thought summaries.
        #[serde(skip_serializing_if = "Option::is_none")]
        thought: Option<bool>,
        /// The signature it arrived with.
        #[serde(rename = "thoughtSignature", skip_serializing_if = "Option::is_none")]
        thought_signature: Option<&'a str>,
    },
    /// `{"functionCall", "thoughtSignature"?}`.
    Call {
        /// The call.
        #[serde(rename = "functionCall")]
        function_call: Call<'a>,
        /// The signature it arrived with.
        #[serde(rename = "thoughtSignature", skip_serializing_if = "Option::is_none")]
        thought_signature: Option<&'a str>,
    },
    /// `{"functionResponse", "thoughtSignature"?}`.
    Response {
        /// The result.
        #[serde(rename = "functionResponse")]
        function_response: Response<'a>,
        /// A signature, should one ever come with it.
        #[serde(rename = "thoughtSignature", skip_serializing_if = "Option::is_none")]
        thought_signature: Option<&'a str>,
    },
    /// Any other part, exactly as received.
    Other(Json<'a>),
}

/// `functionCall` as sent back.
#[derive(Debug, Serialize)]
pub struct Call<'a> {
    /// The function.
    pub name: &'a str,
    /// Its arguments, as received.
    pub args: Json<'a>,
    /// The call's id, if it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
}

/// `functionResponse` as sent.
#[derive(Debug, Serialize)]
pub struct Response<'a> {
    /// The function.
    pub name: &'a str,
    /// The id of the call it answers, if that had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
    /// The result object.
    pub response: Json<'a>,
}

/// JSON kept as text: sent as is when it is JSON, else as a JSON string, so nothing is
/// silently dropped.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Json<'a> {
    /// Valid JSON, sent byte for byte.
    Raw(&'a RawValue),
    /// Text that is not JSON.
    Text(&'a str),
}

impl<'a> Json<'a> {
    /// Wraps stored JSON text.
    pub fn of(text: &'a str) -> Self {
        serde_json::from_str::<&RawValue>(text).map_or(Json::Text(text), Json::Raw)
    }
}

/// One streamed `GenerateContentResponse` (written too, by `omnid --demo`).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    /// The candidates; Omni reads the first.
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    /// Token counts so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_metadata: Option<UsageMetadata>,
    /// The model version that answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_version: Option<String>,
    /// Set when the prompt was refused.
    #[serde(skip_serializing)]
    pub prompt_feedback: Option<PromptFeedback>,
    /// Set when the API reports an error inside the stream.
    #[serde(skip_serializing)]
    pub error: Option<ApiError>,
}

/// One candidate answer.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// Its content so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<CandidateContent>,
    /// Set on the last chunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
}

/// The content of a turn: its role and its parts, each kept raw until read.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct CandidateContent {
    /// `user` or `model`.
    #[serde(default)]
    pub role: String,
    /// The parts, as they arrived.
    #[serde(default)]
    pub parts: Vec<Box<RawValue>>,
}

/// A part as it arrives; anything else it holds is kept by keeping the raw part.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartIn {
    /// Text, or a thought summary's text.
    pub text: Option<String>,
    /// `true` for thought summaries.
    pub thought: Option<bool>,
    /// The opaque signature on this part.
    pub thought_signature: Option<String>,
    /// A function call.
    pub function_call: Option<CallIn>,
    /// A function response (in requests).
    pub function_response: Option<ResponseIn>,
}

/// `functionCall` as it arrives.
#[derive(Debug, Default, Deserialize)]
pub struct CallIn {
    /// The function.
    #[serde(default)]
    pub name: String,
    /// Its arguments.
    pub args: Option<Box<RawValue>>,
    /// Its id, if the API gave one.
    pub id: Option<String>,
}

/// `functionResponse` as it arrives.
#[derive(Debug, Default, Deserialize)]
pub struct ResponseIn {
    /// The function.
    #[serde(default)]
    pub name: String,
    /// The result object.
    pub response: Option<Box<RawValue>>,
    /// The id of the call it answers.
    pub id: Option<String>,
}

/// `usageMetadata`. Counts are read wide and narrowed with saturation, never truncated.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageMetadata {
    /// Tokens in the context.
    #[serde(default)]
    pub prompt_token_count: u64,
    /// Tokens in the answer.
    #[serde(default)]
    pub candidates_token_count: u64,
    /// Tokens spent thinking.
    #[serde(default)]
    pub thoughts_token_count: u64,
    /// All tokens.
    #[serde(default)]
    pub total_token_count: u64,
    /// Tokens of the context read from cached content.
    #[serde(default)]
    pub cached_content_token_count: u64,
}

/// `promptFeedback`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptFeedback {
    /// Why the prompt was blocked.
    pub block_reason: Option<String>,
}

/// The `error` object of Gemini's error bodies (and of an error inside its stream): `code`,
/// `message`, `details` (its `status` is read for messages, `error.rs`). Read leniently (a `code` that is not a number is kept
/// but not used), so the messages of other APIs' errors are read too.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct ApiError {
    /// The HTTP-like number (`429`).
    pub code: Option<serde_json::Value>,
    /// The API's message.
    pub message: Option<String>,
    /// Typed details (`RetryInfo`, `QuotaFailure`, `ErrorInfo`, ...).
    #[serde(default)]
    pub details: Vec<ErrorDetail>,
}

impl ApiError {
    /// The numeric code, if the code is a number.
    pub fn number(&self) -> Option<u64> {
        self.code.as_ref().and_then(serde_json::Value::as_u64)
    }
}

/// One entry of `error.details`; fields of the kinds Omni reads.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    /// `type.googleapis.com/google.rpc.RetryInfo` and the like.
    #[serde(rename = "@type", default)]
    pub kind: String,
    /// `ErrorInfo.reason`.
    pub reason: Option<String>,
    /// `RetryInfo.retryDelay` (`"2s"`, `"1.5s"`).
    pub retry_delay: Option<String>,
    /// `QuotaFailure.violations`.
    #[serde(default)]
    pub violations: Vec<QuotaViolation>,
}

impl ErrorDetail {
    /// Whether this detail is of the given kind (`google.rpc.RetryInfo`, ...).
    pub fn is(&self, kind: &str) -> bool {
        self.kind.ends_with(kind)
    }
}

/// One `QuotaFailure` violation.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaViolation {
    /// The quota's id (`GenerateRequestsPerDayPerProjectPerModel-FreeTier`, ...).
    pub quota_id: Option<String>,
    /// The quota's metric.
    pub quota_metric: Option<String>,
}

/// What Omni reads of a model resource (`GET /v1beta/models/{model}`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelResource {
    /// How many input tokens the model takes.
    pub input_token_limit: Option<u64>,
}

/// The `inputTokenLimit` of a model resource's JSON, if it has one above zero.
pub fn input_token_limit(body: &str) -> Option<u64> {
    let resource: ModelResource = serde_json::from_str(body).ok()?;
    resource.input_token_limit.filter(|tokens| *tokens > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::signs::error_object;

    #[test]
    fn a_model_resource_gives_its_input_token_limit() {
        let body = r#"{"name": "models/gemini-2.5-flash", "version": "001",
            "inputTokenLimit": 1048576, "outputTokenLimit": 65536,
            "supportedGenerationMethods": ["generateContent", "countTokens"]}"#;
        assert_eq!(input_token_limit(body), Some(1_048_576));
        assert_eq!(input_token_limit(r#"{"name": "models/m"}"#), None);
        assert_eq!(input_token_limit(r#"{"inputTokenLimit": 0}"#), None);
        assert_eq!(input_token_limit("not json"), None);
    }

    #[test]
    fn error_objects_with_their_details_and_codes_that_are_not_numbers() {
        let plain = r#"{"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}]}}"#;
        let error: ApiError = error_object(plain).unwrap();
        assert_eq!(error.number(), Some(429));
        assert!(error.details[0].is("google.rpc.RetryInfo"));
        assert_eq!(error.details[0].retry_delay.as_deref(), Some("2s"));
        let openai = r#"{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}"#;
        let error: ApiError = error_object(openai).unwrap();
        assert_eq!(error.number(), None);
        assert_eq!(
            error.message.as_deref(),
            Some("You exceeded your current quota")
        );
    }

    #[test]
    fn kept_json_is_sent_byte_for_byte_and_text_that_is_not_json_as_a_string() {
        let args = r#"{"city":"Paris", "when": [1,2]}"#;
        assert_eq!(serde_json::to_string(&Json::of(args)).unwrap(), args);
        assert_eq!(
            serde_json::to_string(&Json::of("not json")).unwrap(),
            "\"not json\""
        );
    }
}
