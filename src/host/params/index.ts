export { parameterProblems, type ParameterProblem } from './profile-checks';
export {
  declaredParameters,
  parameterSchema,
  parameterSchemas,
  parameterTypes,
  type ParameterDeclaration,
  type ParameterPlace,
  type ParameterSchemas,
  type ParameterType,
} from './parameter-types';
export { parameterRouteOptions } from './validator';
