export type { SimResource, SimSubscription, WasteCase } from './data.js';
export { WASTE_CASES } from './data.js';
export type {
  ColumnOrder,
  EndpointMatch,
  FailOptions,
  FaultSwitches,
  GraphQuotaOptions,
  SimEndpoint,
  ThrottleHeaderKind,
  ThrottleOptions,
} from './faults.js';
export { THROTTLE_HEADER_NAMES } from './faults.js';
export type { AzureSimulator, AzureSimulatorOptions, SimRequest, SimStats } from './server.js';
export { SIM_CA, startAzureSimulator } from './server.js';
