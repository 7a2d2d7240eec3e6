/**
 * @module @tributary/contracts
 * Shapes shared by every package: the error-code registry and the platform error class.
 */
export { ERROR_CODES, isErrorCode } from './error-codes.js';
export type { ErrorCategory, ErrorCode } from './error-codes.js';
export { AppError, isAppError } from './app-error.js';
export { errorMessage } from './error-message.js';
export { errorEchoIndex, withoutErrorEcho } from './error-echo.js';
export { countOf } from './count.js';
export { workflowFileOf } from './workflow-file.js';
export { workflowNameConflict } from './workflow-name-conflict.js';
export type { AppErrorDetails, SerializedError } from './app-error.js';
export {
  DeleteEventsQuery,
  DeleteSourceQuery,
  DeploySourceBody,
  DeployedSource,
  ErrorBody,
  EventSummary,
  EventsQuery,
  Invocation,
  list,
  LogEntry,
  PageInfo,
  PageQuery,
  PublishComponentBody,
  RunSourceBody,
  SaveComponentBody,
  SavedComponent,
  single,
  UpdateSourceBody,
  User,
} from './api/rest-schemas.js';
export {
  Account,
  AccountDetail,
  AccountsQuery,
  AccountStatus,
  AccountTestResult,
  AppAuthMode,
  AppOAuth,
  AppTestRequest,
  ConnectAttempt,
  OAuthClient,
  PutOAuthClientBody,
  StartConnectBody,
  ApiKey,
  App,
  AppAuthType,
  AppField,
  AppsFile,
  AppSlug,
  AuthProvision,
  ConfigureComponentBody,
  ConfigureComponentResult,
  CreateAccountBody,
  CreateApiKeyBody,
  CreatedApiKey,
  DeadLetter,
  DeadLettersQuery,
  DeletedAccount,
  PutAppBody,
  ReloadPropsBody,
  ReloadPropsResult,
  RunActionBody,
  RunReport,
} from './api/rest-schemas.js';
export {
  DeliveriesByRunQuery,
  DeliveriesQuery,
  Delivery,
  DeliveryAttempt,
  Subscription,
  SubscriptionQuery,
} from './api/rest-schemas.js';
export type * from './api/rest-schemas.js';
export {
  CreateWorkflowBody,
  RunStatus,
  RunWorkflowBody,
  StartedRun,
  StepName,
  StepRun,
  StepStatus,
  TestStepBody,
  UpdateWorkflowBody,
  Workflow,
  WorkflowRun,
  WorkflowRunDetail,
  WorkflowRunsQuery,
  WorkflowSettings,
  WorkflowSpec,
  WorkflowStep,
  WorkflowTrigger,
} from './api/workflow-schemas.js';
export type * from './api/workflow-schemas.js';
export {
  ImportJob,
  ImportPackageBody,
  ImportReport,
  OutdatedPackage,
  RegistryPackage,
  RemovedPackage,
  SkippedComponent,
  UpgradePackagesBody,
} from './api/registry-schemas.js';
export type { ImportJobT, ImportReportT, OutdatedPackageT, RegistryPackageT } from './api/registry-schemas.js';
export { BrowserSessionInfo, CreateSessionBody } from './api/session-schemas.js';
export { ServerStatus } from './api/status-schema.js';
